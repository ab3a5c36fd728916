// SPDX-License-Identifier: Apache-2.0
// The runners: the GPU engine's kernels (CUDA builds) or the same steps on CPU threads.
#include "apps/graph/gpu/runners.hpp"

#include "apps/graph/gpu/bfs_driver.hpp"
#include "apps/graph/gpu/cc_driver.hpp"
#include "apps/graph/gpu/cpu_executor.hpp"
#include "apps/graph/gpu/pagerank_driver.hpp"
#include "apps/graph/gpu/sssp_driver.hpp"

#include "apps/graph/gpu/gpu_runners.hpp"

#include <bam/error.hpp>

#if BAM_WITH_CUDA_RUNTIME
#include <bam/host/memory/cuda_memory.hpp>
#endif

namespace bam::graph::gpu {

namespace {
/**
 * @brief Runs gpu(0) when the options ask for the GPU engine (throwing when there is none),
 * else cpu(executor) on the options' threads. `gpu` is a generic lambda, so a CPU-only build
 * never instantiates its call into the CUDA sources.
 */
template <class Gpu, class Cpu>
auto dispatch(const run_options& o, Gpu&& gpu, Cpu&& cpu) {
  if (o.where == engine::gpu) {
#if BAM_WITH_CUDA_RUNTIME
    BAM_EXPECTS(host::cuda_device_present(), "the GPU engine was asked for, but no CUDA device is present");
    return gpu(0);
#else
    (void)gpu;
    throw bam::invalid_argument("the GPU engine was asked for, but bam was built without CUDA");
#endif
  }
  cpu_executor ex(o.cpu_threads);
  return cpu(ex);
}
}  // namespace

template <class Edges, class Weights>
bfs_result run_bfs(const graph_view<Edges, Weights>& g, std::uint64_t source, const bfs_options& o) {
  return dispatch(o, [&](auto) { return detail::gpu_bfs(g, source, o); },
                  [&](cpu_executor& ex) { return bfs_driver(ex, g, source, o); });
}

template <class Edges, class Weights>
cc_result<typename Edges::value_type> run_cc(const graph_view<Edges, Weights>& g, const run_options& o) {
  return dispatch(o, [&](auto) { return detail::gpu_cc(g, o); }, [&](cpu_executor& ex) { return cc_driver(ex, g, o); });
}

template <class Edges, class Weights>
pagerank_run run_pagerank(const graph_view<Edges, Weights>& g, const pagerank_options& o) {
  return dispatch(o, [&](auto) { return detail::gpu_pagerank(g, o); },
                  [&](cpu_executor& ex) { return pagerank_driver(ex, g, o); });
}

template <class Edges, class Weights>
sssp_result run_sssp(const graph_view<Edges, Weights>& g, std::uint64_t source, const sssp_options& o) {
  return dispatch(o, [&](auto) { return detail::gpu_sssp(g, source, o); },
                  [&](cpu_executor& ex) { return sssp_driver(ex, g, source, o); });
}

#define BAM_GRAPH_INSTANTIATE(E, W)                                                                        \
  template bfs_result run_bfs(const graph_view<E, W>&, std::uint64_t, const bfs_options&);                \
  template cc_result<typename E::value_type> run_cc(const graph_view<E, W>&, const run_options&);         \
  template pagerank_run run_pagerank(const graph_view<E, W>&, const pagerank_options&);                    \
  template sssp_result run_sssp(const graph_view<E, W>&, std::uint64_t, const sssp_options&);
BAM_GRAPH_GPU_FOR_EACH_VIEW(BAM_GRAPH_INSTANTIATE)

}  // namespace bam::graph::gpu
