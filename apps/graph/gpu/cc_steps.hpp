// SPDX-License-Identifier: Apache-2.0
// The steps of Afforest (Sutton et al., as GAP's cc.cc runs it), for GPU warps and CPU threads:
// link a few sampled neighbors of every vertex in one pass, compress, find the most frequent label, then
// link the remaining edges of every vertex outside that component, and compress again.
#pragma once

#include "apps/graph/gpu/graph_view.hpp"
#include "apps/graph/gpu/step_support.hpp"

#include <bam/config.hpp>
#include <bam/lane_group.hpp>

#include <cstdint>

namespace bam::graph::gpu {

/**
 * @brief Joins the trees of u and v: hooks the larger root under the smaller label.
 * @note Invariant: comp[x] <= x (hooks and compression only lower labels), so each tree's root
 * is its smallest vertex, and after the final compression comp[x] is the smallest vertex of x's
 * component. Only a root is ever re-pointed, by a relaxed compare-and-swap from itself; a lost
 * race re-reads both roots and retries. Concurrent compressions only shorten paths.
 */
template <class Id>
BAM_HD void afforest_link(Id* comp, Id u, Id v) {
  Id p1 = load_word(comp + u);
  Id p2 = load_word(comp + v);
  while (p1 != p2) {
    const Id high = p1 > p2 ? p1 : p2;
    const Id low = p1 > p2 ? p2 : p1;
    Id p_high = load_word(comp + high);
    if (p_high == low) break;  // already hooked there
    if (p_high == high &&
        word_ref<Id>(comp[high]).compare_exchange_strong(p_high, low, cuda::std::memory_order_relaxed)) {
      break;
    }
    p1 = load_word(comp + load_word(comp + high));
    p2 = load_word(comp + low);
  }
}

/// Lane step: points x's label at its tree's root (GAP's Compress).
template <class Id>
struct afforest_compress {
  Id* comp;

  BAM_HD step_totals operator()(std::uint64_t x) const {
    for (Id up = load_word(comp + x), upup = load_word(comp + up); up != upup;
         up = upup, upup = load_word(comp + up)) {
      store_word(comp + x, upup);
    }
    return {};
  }
};

/**
 * @brief Lane step: links u with its first `rounds` neighbors (the sampling phase).
 * @note GAP links one neighbor per round and compresses between rounds; linking them in one
 * pass gives the same components (links only join trees) and reads each vertex's first
 * neighbors from one page visit, where separate rounds would stream the neighbor array through
 * the cache once per round.
 */
template <class Graph>
struct afforest_sample_link {
  using id_type = typename Graph::id_type;
  Graph g;
  id_type* comp;
  std::uint64_t rounds;

  BAM_HD step_totals operator()(std::uint64_t u) const {
    step_totals t;
    const std::uint64_t degree = g.degree(u);
    const std::uint64_t n = rounds < degree ? rounds : degree;
    for (std::uint64_t r = 0; r < n; ++r) afforest_link(comp, static_cast<id_type>(u), g.neighbors[g.begin(u) + r]);
    t.edges = n;
    return t;
  }
};

/**
 * @brief Group step: links u with its neighbors from number `first` on, unless u's label is
 * `skip` (the largest sampled component; GAP's argument: with symmetric lists its members'
 * edges are all seen from the other side). skip = num_vertices disables skipping.
 */
template <class Graph>
struct afforest_link_rest {
  using id_type = typename Graph::id_type;
  Graph g;
  id_type* comp;
  std::uint64_t first;
  std::uint64_t skip;

  template <lane_group Group>
  BAM_HD step_totals operator()(Group& grp, std::uint64_t u) const {
    step_totals t;
    // Rank 0's read decides for the whole group (labels change under concurrent links).
    if (grp.shfl(load_word(comp + u), 0) == skip) return t;
    const std::uint64_t degree = g.degree(u);
    if (degree <= first) return t;
    if (grp.rank() == 0) t.edges = degree - first;
    g.neighbors.scan(grp, g.begin(u) + first, degree - first, [&](std::uint64_t, id_type v) {
      afforest_link(comp, static_cast<id_type>(u), v);
      return false;
    });
    return t;
  }
};

/// Lane step: out[k] = comp[at[k]] (samples for the most frequent label).
template <class Id>
struct gather_labels {
  Id* comp;
  const std::uint64_t* at;
  Id* out;

  BAM_HD step_totals operator()(std::uint64_t k) const {
    out[k] = load_word(comp + at[k]);
    return {};
  }
};

}  // namespace bam::graph::gpu
