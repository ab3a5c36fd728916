// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/error.hpp"

#include "apps/common/errno_error.hpp"

#include <cerrno>

namespace bam::graph {

void throw_io_error(const std::filesystem::path& path, std::string_view what) {
  throw io_error(apps::errno_message(path.string() + ": " + std::string(what), errno));
}

}  // namespace bam::graph
