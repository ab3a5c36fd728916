// SPDX-License-Identifier: Apache-2.0
// Afforest connected components (Sutton, Ben-Nun and Barak, IPDPS'18), as GAP's cc.cc runs it:
// link a few sampled neighbors of every vertex, find the component most vertices already
// joined, then link the remaining edges of the vertices outside it.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/graph/cpu_fast/thread_team.hpp"
#include "apps/graph/csr_view.hpp"

namespace bam::graph::cpu_fast {

struct cc_options {
  std::uint32_t neighbor_rounds = 2;  ///< GAP's default
  std::uint32_t samples = 1024;       ///< labels sampled to guess the largest component
};

/**
 * @brief Component of every vertex, named by its smallest vertex id: equal to
 *        bam::graph::connected_components(). Edges are taken as undirected.
 * @note Links point a larger label at a smaller one, so each tree's root is its component's
 *       smallest vertex. Skipping the largest component's vertices in the final phase is sound
 *       only when every edge is also seen from its other end, so a directed graph links all of
 *       its edges.
 */
template <class Id>
std::vector<Id> connected_components(const csr_view<Id>& g, thread_team& team,
                                     const cc_options& options = {});

extern template std::vector<std::uint32_t> connected_components(const csr_view<std::uint32_t>&,
                                                                thread_team&, const cc_options&);
extern template std::vector<std::uint64_t> connected_components(const csr_view<std::uint64_t>&,
                                                                thread_team&, const cc_options&);

}  // namespace bam::graph::cpu_fast
