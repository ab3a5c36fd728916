// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/gpu/driver_support.hpp"

#include "apps/graph/frontier.hpp"

namespace bam::graph::gpu {

void check_run_source(std::string_view algorithm, std::uint64_t source, std::uint64_t n) {
  check_source(algorithm, source, n);
}

}  // namespace bam::graph::gpu
