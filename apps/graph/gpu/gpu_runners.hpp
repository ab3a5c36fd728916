// SPDX-License-Identifier: Apache-2.0
// The GPU engine of each runner (defined in the .cu files of this folder; CUDA builds only).
#pragma once

#include "apps/graph/gpu/runners.hpp"

namespace bam::graph::gpu::detail {

template <class Edges, class Weights>
bfs_result gpu_bfs(const graph_view<Edges, Weights>& g, std::uint64_t source, const bfs_options& o);
template <class Edges, class Weights>
cc_result<typename Edges::value_type> gpu_cc(const graph_view<Edges, Weights>& g, const run_options& o);
template <class Edges, class Weights>
pagerank_run gpu_pagerank(const graph_view<Edges, Weights>& g, const pagerank_options& o);
template <class Edges, class Weights>
sssp_result gpu_sssp(const graph_view<Edges, Weights>& g, std::uint64_t source, const sssp_options& o);

}  // namespace bam::graph::gpu::detail
