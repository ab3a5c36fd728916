// SPDX-License-Identifier: Apache-2.0
// The step of frontier Bellman-Ford SSSP (label-correcting, as the CPU reference), for GPU
// warps and CPU threads.
#pragma once

#include "apps/graph/gpu/graph_view.hpp"
#include "apps/graph/gpu/step_support.hpp"
#include "apps/graph/sssp.hpp"

#include <bam/config.hpp>
#include <bam/detail/lane_group.hpp>

#include <cstdint>

namespace bam::graph::gpu {

/**
 * @brief Group step: relaxes every out-edge of frontier vertex u = frontier[i]:
 * dist[v] = min(dist[v], dist[u] + w) by an atomic fetch_min; a vertex whose distance dropped is
 * appended to `next` once per round, guarded by its `queued` word (cleared after the round).
 * @note Lanes may read different dist[u] values while other groups lower it; each is a valid
 * upper bound, and a lowered dist[u] has queued u again. Relaxed atomics; rounds are separated
 * by kernel boundaries.
 */
template <class Graph>
struct sssp_relax_step {
  using id_type = typename Graph::id_type;
  Graph g;
  std::uint64_t* dist;
  std::uint32_t* queued;
  const id_type* frontier;
  id_type* next;
  std::uint64_t* next_size;

  template <detail::lane_group Group>
  BAM_HD step_totals operator()(Group& grp, std::uint64_t i) const {
    const id_type u = frontier[i];
    step_totals t;
    const std::uint64_t n = g.degree(u);
    if (grp.rank() == 0) t.edges = n;
    const std::uint64_t du = load_word(dist + u);
    g.neighbors.scan(grp, g.begin(u), n, [&](std::uint64_t j, id_type v) {
      const std::uint64_t candidate = du + g.weights[j];
      if (word_ref<std::uint64_t>(dist[v]).fetch_min(candidate, cuda::std::memory_order_relaxed) > candidate &&
          word_ref<std::uint32_t>(queued[v]).exchange(1, cuda::std::memory_order_relaxed) == 0) {
        next[queue_slot(next_size)] = v;
        ++t.vertices;
      }
      return false;
    });
    return t;
  }
};

/// Lane step: clears the queued word of frontier[i] (after the round that queued it).
template <class Id>
struct sssp_unqueue {
  const Id* frontier;
  std::uint32_t* queued;

  BAM_HD step_totals operator()(std::uint64_t i) const {
    store_word(queued + frontier[i], 0u);
    return {};
  }
};

}  // namespace bam::graph::gpu
