// SPDX-License-Identifier: Apache-2.0
// The GPU engine of Afforest connected components: the shared host loop over the kernel executor.
#include "apps/graph/gpu/cc_driver.hpp"
#include "apps/graph/gpu/gpu_executor.cuh"
#include "apps/graph/gpu/gpu_runners.hpp"

namespace bam::graph::gpu::detail {

template <class Edges, class Weights>
cc_result<typename Edges::value_type> gpu_cc(const graph_view<Edges, Weights>& g, const run_options& o) {
  gpu_executor ex(o, pin_slots(g.neighbors));
  return cc_driver(ex, g, o);
}

#define BAM_GRAPH_INSTANTIATE(E, W) template cc_result<typename E::value_type> gpu_cc(const graph_view<E, W>&, const run_options&);
BAM_GRAPH_GPU_FOR_EACH_VIEW(BAM_GRAPH_INSTANTIATE)

}  // namespace bam::graph::gpu::detail
