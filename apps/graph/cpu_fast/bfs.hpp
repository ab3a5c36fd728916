// SPDX-License-Identifier: Apache-2.0
// Direction-optimizing breadth-first search (Beamer, Asanović and Patterson, SC'12), as GAP's
// bfs.cc runs it: top-down steps over a queue while the frontier is small, bottom-up steps over
// bitmaps while it is large, on a thread_team.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/graph/cpu_fast/thread_team.hpp"
#include "apps/graph/csr_view.hpp"

namespace bam::graph::cpu_fast {

/// GAP's switching thresholds.
struct bfs_options {
  std::uint64_t alpha = 15;  ///< go bottom-up once the frontier's edges exceed unexplored / alpha
  std::uint64_t beta = 18;   ///< back to top-down once the frontier shrinks below n / beta
};

/**
 * @brief Hop count from `source` to every vertex (bfs_unreached when none), equal to
 *        bam::graph::bfs_depths().
 * @note Bottom-up steps look for parents among a vertex's own neighbors, so they are taken only
 *       when g.symmetric; a directed graph is searched top-down throughout.
 * @throw graph_error when source is not a vertex.
 */
template <class Id>
std::vector<std::uint32_t> bfs(const csr_view<Id>& g, std::uint64_t source, thread_team& team,
                               const bfs_options& options = {});

extern template std::vector<std::uint32_t> bfs(const csr_view<std::uint32_t>&, std::uint64_t,
                                               thread_team&, const bfs_options&);
extern template std::vector<std::uint32_t> bfs(const csr_view<std::uint64_t>&, std::uint64_t,
                                               thread_team&, const bfs_options&);

}  // namespace bam::graph::cpu_fast
