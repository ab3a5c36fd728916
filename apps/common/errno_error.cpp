// SPDX-License-Identifier: Apache-2.0
#include "apps/common/errno_error.hpp"

#include <bam/error.hpp>

#include <cstring>

namespace bam::apps {

std::string errno_message(std::string_view what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

void throw_errno(std::string_view what, int err) { throw bam::system_error(errno_message(what, err)); }

}  // namespace bam::apps
