// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/error.hpp"

#include <cerrno>
#include <cstring>

namespace bam::graph {

void throw_io_error(const std::filesystem::path& path, std::string_view what) {
  const int err = errno;
  throw io_error(path.string() + ": " + std::string(what) + ": " + std::strerror(err));
}

}  // namespace bam::graph
