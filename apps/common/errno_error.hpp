// SPDX-License-Identifier: Apache-2.0
// The one way apps turn a failed system call's errno into a message or an exception.
#pragma once

#include <cerrno>
#include <string>
#include <string_view>

namespace bam::apps {

/// "<what>: <strerror(err)>". Pass errno right after the failing call, before it can change.
[[nodiscard]] std::string errno_message(std::string_view what, int err);

/// Throws bam::system_error with errno_message(what, err).
[[noreturn]] void throw_errno(std::string_view what, int err);

}  // namespace bam::apps
