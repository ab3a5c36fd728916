// SPDX-License-Identifier: Apache-2.0
// Host entry points of the graph kernels: BFS (direction-optimizing), connected components
// (Afforest), PageRank (pull) and SSSP (delta-stepping), each over any graph_view
// instantiated below, on the GPU or, with the same per-vertex code, on CPU threads.
#pragma once

#include "apps/graph/gpu/graph_view.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bam::graph::gpu {

/// Where a run executes. The graph's memory must be readable there (a bam::array over queues
/// driven by the GPU on the GPU, over CPU-driven queues on the CPU).
enum class engine { gpu, cpu };

/// One finished step of a run, handed to run_options::on_iteration between kernels (all device
/// work of the step is complete, so cache statistics read now belong to it).
struct iteration_info {
  std::uint32_t iteration = 0;      ///< 0, 1, ... in the run
  std::string phase;                ///< "top-down", "bottom-up", "sample", "link", "pull", "relax", "bucket", ...
  std::uint64_t frontier = 0;       ///< vertices the step worked on (active vertices)
  std::uint64_t edges = 0;          ///< neighbor entries the step read
  double seconds = 0;               ///< wall time of the step
};

struct run_options {
  engine where = engine::gpu;
  unsigned cpu_threads = 0;          ///< CPU engine: threads (0: hardware concurrency)
  unsigned block_threads = 256;      ///< GPU engine: threads per block (a multiple of 32)
  /// GPU engine, cached storage: resident warps are bounded so that their pins use at most half
  /// the cache's slots; this caps them further (0: no extra cap).
  std::uint64_t max_warps = 0;
  /// Called after every step (level, round, iteration) on the calling thread; may throw to abort.
  std::function<void(const iteration_info&)> on_iteration;
};

struct bfs_options : run_options {
  std::uint32_t alpha = 15;  ///< GAP: go bottom-up when frontier edges > unexplored edges / alpha
  std::uint32_t beta = 18;   ///< GAP: go back top-down when the frontier shrinks below n / beta
};

struct bfs_result {
  std::vector<std::uint32_t> depth;  ///< hops from the source; bfs_unreached when not reached
  double seconds = 0;                ///< kernels and host loop, without result copies
  std::uint64_t edges_examined = 0;  ///< neighbor entries read (bottom-up stops early)
  std::uint32_t levels = 0;
};

template <class Id>
struct cc_result {
  std::vector<Id> component;  ///< smallest vertex of each vertex's component (weak components)
  double seconds = 0;
  std::uint64_t edges_examined = 0;
};

struct pagerank_options : run_options {
  double damping = 0.85;
  int iterations = 20;     ///< GAP's -i: iterations to run at most
  double tolerance = 0;    ///< stop early once the L1 change is below it (GAP: 1e-4; 0: never)
};

struct pagerank_run {
  std::vector<double> scores;
  int iterations = 0;
  double change = 0;  ///< L1 change of the last iteration
  double seconds = 0;
  std::uint64_t edges_examined = 0;
};

struct sssp_options : run_options {
  /**
   * Width of a distance bucket (delta-stepping's delta), at least 1. Narrow buckets relax each
   * reached list about once but take many rounds (each a kernel launch and, through the page
   * cache, at least one read latency); one bucket wider than every distance is frontier
   * Bellman-Ford. 32 for GAP's weights (uniform 1..255), measured on the CPU engine at scale 18
   * (4 GAP sources; README.md has the sweep): kron relaxes 1.45x the reached lists' edges in 35
   * rounds, where delta 2 (GAP's CPU setting) takes 233 rounds and Bellman-Ford relaxes 2.54x;
   * urand 1.19x in 42 rounds (delta 2: 153; Bellman-Ford 4.52x).
   */
  std::uint64_t delta = 32;
};

struct sssp_result {
  std::vector<std::uint64_t> distance;  ///< sssp_unreached when not reached
  double seconds = 0;
  std::uint64_t edges_examined = 0;
  std::uint32_t rounds = 0;   ///< relax steps (each relaxes the current bucket's frontier once)
  std::uint32_t buckets = 0;  ///< non-empty buckets processed
};

/**
 * @brief Direction-optimizing BFS (Beamer; GAP's alpha/beta switching) from `source`. A graph
 * that is not symmetric gets top-down steps only (bottom-up steps look for parents in a vertex's
 * own list, which must then hold its in-neighbors).
 * @throw graph_error when source is not a vertex; bam::error when the GPU engine is asked for
 * without a GPU (or in a CPU-only build); bam::cuda_error from the runtime.
 */
template <class Edges, class Weights>
bfs_result run_bfs(const graph_view<Edges, Weights>& g, std::uint64_t source, const bfs_options& o);

/// Afforest (GAP's cc): neighbor sampling, skipping the largest intermediate component; for
/// a graph that is not symmetric every vertex's whole list is linked (weak components).
template <class Edges, class Weights>
cc_result<typename Edges::value_type> run_cc(const graph_view<Edges, Weights>& g, const run_options& o);

/// Pull PageRank with GAP's semantics; @throw graph_error when the graph is not symmetric.
template <class Edges, class Weights>
pagerank_run run_pagerank(const graph_view<Edges, Weights>& g, const pagerank_options& o);

/**
 * @brief Delta-stepping (Meyer and Sanders) from `source`: distances along out-edges, equal to
 * bam::graph::sssp_distances().
 * @throw graph_error for an unweighted graph, a bad source, or delta 0.
 */
template <class Edges, class Weights>
sssp_result run_sssp(const graph_view<Edges, Weights>& g, std::uint64_t source, const sssp_options& o);

/// The graph views every runner is instantiated for.
#define BAM_GRAPH_GPU_FOR_EACH_VIEW(X)                          \
  X(::bam::graph::gpu::cached_edges<std::uint32_t>, ::bam::graph::gpu::cached_edges<::bam::graph::weight_t>)   \
  X(::bam::graph::gpu::cached_edges<std::uint64_t>, ::bam::graph::gpu::cached_edges<::bam::graph::weight_t>)   \
  X(::bam::graph::gpu::pointer_edges<std::uint32_t>, ::bam::graph::gpu::pointer_edges<::bam::graph::weight_t>) \
  X(::bam::graph::gpu::pointer_edges<std::uint64_t>, ::bam::graph::gpu::pointer_edges<::bam::graph::weight_t>)

}  // namespace bam::graph::gpu
