// SPDX-License-Identifier: Apache-2.0
// Reference PageRank: GAP's formulation (pull direction, Jacobi iteration), written as the
// per-vertex step a GPU kernel runs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "apps/graph/csr_view.hpp"

namespace bam::graph {

/// GAP's defaults (pr -i 20 -t 1e-4, damping 0.85).
struct pagerank_options {
  double damping = 0.85;
  double tolerance = 1e-4;  ///< stop once the L1 change of one iteration is below this
  int max_iterations = 20;
};

struct pagerank_result {
  std::vector<double> scores;  ///< sum to at most 1: vertices without out-edges leak their share
  int iterations = 0;          ///< iterations run
  double change = 0;           ///< L1 change of the last iteration
};

/**
 * @brief New score of u: (1 - damping) / n + damping * sum of contrib[v] over in-neighbors v,
 *        where contrib[v] = score[v] / out_degree(v) (0 when v has no out-edges).
 * @param in Graph whose neighbor lists are in-neighbors (the graph itself when symmetric).
 */
template <class Id>
double pagerank_pull(const csr_view<Id>& in, Id u, std::span<const double> contrib, double base,
                     double damping) {
  double incoming = 0;
  for (const Id v : in.neighbors_of(u)) incoming += contrib[v];
  return base + damping * incoming;
}

/**
 * @brief Scores by Jacobi iteration from 1/n until the L1 change is below the tolerance or
 *        max_iterations ran. Directed graphs are transposed in memory first.
 * @note The fixed point is Boost's page_rank() result divided by n (Boost iterates
 *       (1 - d) + d * sum). The L1 sum is taken over fixed vertex ranges in order, so the result
 *       does not depend on the thread count.
 */
template <class Id>
pagerank_result pagerank(const csr_view<Id>& g, const pagerank_options& options = {},
                         unsigned threads = 0);

extern template pagerank_result pagerank(const csr_view<std::uint32_t>&, const pagerank_options&,
                                         unsigned);
extern template pagerank_result pagerank(const csr_view<std::uint64_t>&, const pagerank_options&,
                                         unsigned);

}  // namespace bam::graph
