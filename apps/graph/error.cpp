// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/error.hpp"

#include <bam/host/drivers/posix_io.hpp>

#include <cerrno>

namespace bam::graph {

void throw_io_error(const std::filesystem::path& path, std::string_view what) {
  throw io_error(host::errno_message(path.string(), what, errno));
}

}  // namespace bam::graph
