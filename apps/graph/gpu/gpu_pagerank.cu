// SPDX-License-Identifier: Apache-2.0
// The GPU engine of pull PageRank: the shared host loop over the kernel executor.
#include "apps/graph/gpu/pagerank_driver.hpp"
#include "apps/graph/gpu/gpu_executor.cuh"
#include "apps/graph/gpu/gpu_runners.hpp"

namespace bam::graph::gpu::detail {

template <class Edges, class Weights>
pagerank_run gpu_pagerank(const graph_view<Edges, Weights>& g, const pagerank_options& o) {
  gpu_executor ex(o, pin_slots(g.neighbors));
  return pagerank_driver(ex, g, o);
}

#define BAM_GRAPH_INSTANTIATE(E, W) template pagerank_run gpu_pagerank(const graph_view<E, W>&, const pagerank_options&);
BAM_GRAPH_GPU_FOR_EACH_VIEW(BAM_GRAPH_INSTANTIATE)

}  // namespace bam::graph::gpu::detail
