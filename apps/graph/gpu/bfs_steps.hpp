// SPDX-License-Identifier: Apache-2.0
// The per-vertex steps of direction-optimizing BFS (Beamer), for GPU warps and CPU threads.
// Depths are the only shared state: depth[v] goes once from bfs_unreached to its level.
#pragma once

#include "apps/graph/bfs.hpp"
#include "apps/graph/gpu/graph_view.hpp"
#include "apps/graph/gpu/step_support.hpp"

#include <bam/config.hpp>
#include <bam/lane_group.hpp>

#include <cstdint>

namespace bam::graph::gpu {

/**
 * @brief Top-down: the group expands frontier vertex `frontier[i]` (depth `level`); each
 * unreached neighbor is claimed with a compare-and-swap to level + 1 (exactly one claimer) and
 * appended to `next`.
 */
template <class Graph>
struct bfs_top_down {
  using id_type = typename Graph::id_type;
  Graph g;
  std::uint32_t* depth;
  const id_type* frontier;
  id_type* next;
  std::uint64_t* next_size;
  std::uint32_t level;

  template <lane_group Group>
  BAM_HD step_totals operator()(Group& grp, std::uint64_t i) const {
    const id_type u = frontier[i];
    step_totals t;
    const std::uint64_t n = g.degree(u);
    if (grp.rank() == 0) t.edges = n;
    g.neighbors.scan(grp, g.begin(u), n, [&](std::uint64_t, id_type v) {
      std::uint32_t expected = bfs_unreached;
      if (load_word(depth + v) == bfs_unreached &&
          word_ref<std::uint32_t>(depth[v]).compare_exchange_strong(expected, level + 1,
                                                                    cuda::std::memory_order_relaxed)) {
        next[queue_slot(next_size)] = v;
        ++t.vertices;
        t.degrees += g.degree(v);
      }
      return false;
    });
    return t;
  }
};

/**
 * @brief Bottom-up: the group takes vertex v; if unreached, it scans v's list for a neighbor of
 * depth `level` and stops at the first, setting depth[v] = level + 1.
 * @note Needs a symmetric graph (v's list holds its in-neighbors). Only this group writes
 * depth[v] in the step; others compare it with `level` and never see level + 1 as a match.
 */
template <class Graph>
struct bfs_bottom_up {
  using id_type = typename Graph::id_type;
  Graph g;
  std::uint32_t* depth;
  std::uint32_t level;

  template <lane_group Group>
  BAM_HD step_totals operator()(Group& grp, std::uint64_t v) const {
    step_totals t;
    if (load_word(depth + v) != bfs_unreached) return t;  // the same word for every lane
    bool found = false;
    g.neighbors.scan(grp, g.begin(v), g.degree(v), [&](std::uint64_t, id_type u) {
      ++t.edges;
      found = load_word(depth + u) == level;
      return found;
    });
    if (grp.ballot(found) != 0 && grp.rank() == 0) {
      store_word(depth + v, level + 1);
      t.vertices = 1;
      t.degrees = g.degree(v);
    }
    return t;
  }
};

/// Lane step: appends v to the queue when depth[v] == level (bottom-up's frontier as a queue).
template <class Id>
struct bfs_collect {
  std::uint32_t* depth;
  std::uint32_t level;
  Id* queue;
  std::uint64_t* size;

  BAM_HD step_totals operator()(std::uint64_t v) const {
    step_totals t;
    if (load_word(depth + v) != level) return t;
    queue[queue_slot(size)] = static_cast<Id>(v);
    t.vertices = 1;
    return t;
  }
};

}  // namespace bam::graph::gpu
