// SPDX-License-Identifier: Apache-2.0
// The GPU engine of delta-stepping SSSP: the shared host loop over the kernel executor.
#include "apps/graph/gpu/sssp_driver.hpp"
#include "apps/graph/gpu/gpu_executor.cuh"
#include "apps/graph/gpu/gpu_runners.hpp"

namespace bam::graph::gpu::detail {

template <class Edges, class Weights>
sssp_result gpu_sssp(const graph_view<Edges, Weights>& g, std::uint64_t source, const sssp_options& o) {
  gpu_executor ex(o, pin_slots(g.neighbors));
  return sssp_driver(ex, g, source, o);
}

#define BAM_GRAPH_INSTANTIATE(E, W) template sssp_result gpu_sssp(const graph_view<E, W>&, std::uint64_t, const sssp_options&);
BAM_GRAPH_GPU_FOR_EACH_VIEW(BAM_GRAPH_INSTANTIATE)

}  // namespace bam::graph::gpu::detail
