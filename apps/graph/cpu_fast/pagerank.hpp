// SPDX-License-Identifier: Apache-2.0
// PageRank by pulling, as GAP's pr.cc runs it: single-precision scores and contributions (half
// the memory traffic of doubles), each vertex's incoming sum accumulated in double.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/graph/cpu_fast/thread_team.hpp"
#include "apps/graph/csr_view.hpp"
#include "apps/graph/pagerank.hpp"

namespace bam::graph::cpu_fast {

struct pagerank_scores {
  std::vector<float> scores;
  int iterations = 0;  ///< iterations run
  double change = 0;   ///< L1 change of the last iteration
};

/**
 * @brief Jacobi iteration from 1/n, the formulation of bam::graph::pagerank(): stops after
 *        options.max_iterations, or earlier once the L1 change is below options.tolerance
 *        (tolerance 0 runs every iteration, as the benchmarks do).
 * @throw graph_error unless g.symmetric: pulling reads in-neighbors, which only a symmetric
 *        graph's own lists are.
 */
template <class Id>
pagerank_scores pagerank(const csr_view<Id>& g, thread_team& team,
                         const pagerank_options& options = {});

extern template pagerank_scores pagerank(const csr_view<std::uint32_t>&, thread_team&,
                                         const pagerank_options&);
extern template pagerank_scores pagerank(const csr_view<std::uint64_t>&, thread_team&,
                                         const pagerank_options&);

}  // namespace bam::graph::cpu_fast
