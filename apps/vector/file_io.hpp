// SPDX-License-Identifier: Apache-2.0
// bam::vec: whole-file reads and writes whose errors name the file.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace bam::vec {

/// The file's bytes; throws bam::system_error naming the file when it cannot be read.
[[nodiscard]] std::vector<std::byte> read_file(const std::string& path);

/// Creates or replaces `path` with the concatenation of `parts`; throws bam::system_error.
void write_file(const std::string& path, std::span<const std::span<const std::byte>> parts);

/// Throws bam::invalid_argument "<path>: <what>".
[[noreturn]] void bad_file(const std::string& path, const std::string& what);

}  // namespace bam::vec
