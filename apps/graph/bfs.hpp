// SPDX-License-Identifier: Apache-2.0
// Reference breadth-first search: level-synchronous and top-down, written as the per-vertex step
// a GPU kernel runs for each frontier vertex.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "apps/graph/csr_view.hpp"

namespace bam::graph {

/// Depth of a vertex the search did not reach.
inline constexpr std::uint32_t bfs_unreached = 0xFFFFFFFFu;

/**
 * @brief Expands frontier vertex u of depth `level`: every neighbor still unreached is claimed
 *        with depth level + 1 and handed to push(v) (each vertex is claimed exactly once).
 * @note Relaxed compare-and-swap per neighbor; the caller separates levels with a barrier
 *       (thread join here, kernel boundary on a GPU).
 */
template <class Id, class Push>
void bfs_expand(const csr_view<Id>& g, Id u, std::uint32_t level, std::span<std::uint32_t> depth,
                Push&& push) {
  for (const Id v : g.neighbors_of(u)) {
    std::atomic_ref<std::uint32_t> d(depth[v]);
    std::uint32_t expected = bfs_unreached;
    if (d.load(std::memory_order_relaxed) == bfs_unreached &&
        d.compare_exchange_strong(expected, level + 1, std::memory_order_relaxed)) {
      push(v);
    }
  }
}

/**
 * @brief Hop count from `source` to every vertex along out-edges (bfs_unreached if none).
 * @throw graph_error when source is not a vertex.
 */
template <class Id>
std::vector<std::uint32_t> bfs_depths(const csr_view<Id>& g, std::uint64_t source,
                                      unsigned threads = 0);

extern template std::vector<std::uint32_t> bfs_depths(const csr_view<std::uint32_t>&, std::uint64_t,
                                                      unsigned);
extern template std::vector<std::uint32_t> bfs_depths(const csr_view<std::uint64_t>&, std::uint64_t,
                                                      unsigned);

}  // namespace bam::graph
