// SPDX-License-Identifier: Apache-2.0
// The GPU engine of direction-optimizing BFS: the shared host loop over the kernel executor.
#include "apps/graph/gpu/bfs_driver.hpp"
#include "apps/graph/gpu/gpu_executor.cuh"
#include "apps/graph/gpu/gpu_runners.hpp"

namespace bam::graph::gpu::detail {

template <class Edges, class Weights>
bfs_result gpu_bfs(const graph_view<Edges, Weights>& g, std::uint64_t source, const bfs_options& o) {
  gpu_executor ex(o, pin_slots(g.neighbors));
  return bfs_driver(ex, g, source, o);
}

#define BAM_GRAPH_INSTANTIATE(E, W) template bfs_result gpu_bfs(const graph_view<E, W>&, std::uint64_t, const bfs_options&);
BAM_GRAPH_GPU_FOR_EACH_VIEW(BAM_GRAPH_INSTANTIATE)

}  // namespace bam::graph::gpu::detail
