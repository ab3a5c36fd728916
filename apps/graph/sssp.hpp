// SPDX-License-Identifier: Apache-2.0
// Reference single-source shortest paths: frontier-driven Bellman-Ford (label-correcting). The
// kernels (apps/graph/gpu) and cpu_fast run delta-stepping with the same relaxation and are
// checked against this simpler order, itself checked against Boost's Dijkstra.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "apps/graph/atomic_ops.hpp"
#include "apps/graph/csr_view.hpp"

namespace bam::graph {

/// Distance of a vertex the search did not reach.
inline constexpr std::uint64_t sssp_unreached = ~std::uint64_t{0};

/**
 * @brief Relaxes every out-edge of u: dist[v] = min(dist[v], dist[u] + w). A vertex whose
 *        distance dropped is handed to push(v) once per round, guarded by its `queued` flag.
 * @note dist[u] is read when u is processed, so it may already be lower than when u was queued;
 *       that only saves work. Relaxed atomics; rounds are separated by a barrier.
 */
template <class Id, class Push>
void sssp_relax(const csr_view<Id>& g, Id u, std::span<std::uint64_t> dist,
                std::span<std::uint8_t> queued, Push&& push) {
  const std::uint64_t du = std::atomic_ref(dist[u]).load(std::memory_order_relaxed);
  const auto nbrs = g.neighbors_of(u);
  const auto wts = g.weights_of(u);
  for (std::size_t i = 0; i < nbrs.size(); ++i) {
    const std::uint64_t candidate = du + wts[i];
    if (atomic_fetch_min(dist[nbrs[i]], candidate) > candidate &&
        std::atomic_ref(queued[nbrs[i]]).exchange(1, std::memory_order_relaxed) == 0) {
      push(nbrs[i]);
    }
  }
}

/**
 * @brief Shortest weighted distance from `source` along out-edges (sssp_unreached if none).
 * @throw graph_error for an unweighted graph or a source that is not a vertex.
 */
template <class Id>
std::vector<std::uint64_t> sssp_distances(const csr_view<Id>& g, std::uint64_t source,
                                          unsigned threads = 0);

extern template std::vector<std::uint64_t> sssp_distances(const csr_view<std::uint32_t>&,
                                                          std::uint64_t, unsigned);
extern template std::vector<std::uint64_t> sssp_distances(const csr_view<std::uint64_t>&,
                                                          std::uint64_t, unsigned);

}  // namespace bam::graph
