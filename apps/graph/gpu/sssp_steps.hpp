// SPDX-License-Identifier: Apache-2.0
// The steps of delta-stepping SSSP (Meyer and Sanders, with the near/far split GPU
// implementations use), for GPU warps and CPU threads. Distances only drop (fetch_min), and
// every drop puts the vertex where it is relaxed again: into the next frontier of the bucket
// being processed when its new distance lies in that bucket, else into the far list. Buckets
// are processed in increasing order, so a vertex's list is relaxed only while its distance's
// bucket is processed (once, plus once per drop within that bucket), not after every drop of
// the run as in frontier Bellman-Ford.
#pragma once

#include "apps/graph/gpu/graph_view.hpp"
#include "apps/graph/gpu/step_support.hpp"
#include "apps/graph/sssp.hpp"

#include <bam/config.hpp>
#include <bam/lane_group.hpp>

#include <cstdint>

namespace bam::graph::gpu {

/**
 * @brief The first distance past bucket `b` of width `delta`: (b + 1) * delta, saturated at
 * sssp_unreached (no distance reaches it).
 * @pre delta >= 1
 */
[[nodiscard]] BAM_HD inline std::uint64_t sssp_bucket_end(std::uint64_t b, std::uint64_t delta) {
  return b >= sssp_unreached / delta ? sssp_unreached : (b + 1) * delta;
}

/**
 * @brief Group step: relaxes every out-edge of frontier vertex u = frontier[i] (whose distance
 * lies in the current bucket, below `bucket_end`): dist[v] = min(dist[v], dist[u] + w) by an
 * atomic fetch_min. A vertex whose distance dropped below `bucket_end` is appended to `next`
 * once per round, guarded by its `queued` word (cleared after the round); one whose distance
 * dropped to a later bucket is appended to `far` the first time only, guarded by its
 * `far_listed` word (never cleared: see sssp_far_split), so the far list never exceeds n entries.
 * @note Lanes may read different dist[u] values while other groups lower it; each is a valid
 * upper bound, and a lowered dist[u] has queued u again. Weights are unsigned, so no distance
 * drops below the current bucket. Relaxed atomics; rounds are separated by kernel boundaries.
 */
template <class Graph>
struct sssp_relax_step {
  using id_type = typename Graph::id_type;
  /// Not in the 128-register kernels: capped, a cache of 1/8 of the edges ran 25% slower.
  static constexpr bool register_cap = false;
  Graph g;
  std::uint64_t* dist;
  std::uint32_t* queued;
  std::uint32_t* far_listed;
  const id_type* frontier;
  id_type* next;
  std::uint64_t* next_size;
  id_type* far;
  std::uint64_t* far_size;
  std::uint64_t bucket_end;

  template <lane_group Group>
  BAM_HD step_totals operator()(Group& grp, std::uint64_t i) const {
    const id_type u = frontier[i];
    step_totals t;
    const std::uint64_t n = g.degree(u);
    if (grp.rank() == 0) t.edges = n;
    const std::uint64_t du = load_word(dist + u);
    g.neighbors.scan(grp, g.begin(u), n, [&](std::uint64_t j, id_type v) {
      const std::uint64_t candidate = du + g.weights[j];
      if (word_ref<std::uint64_t>(dist[v]).fetch_min(candidate, cuda::std::memory_order_relaxed) <= candidate) {
        return false;
      }
      if (candidate < bucket_end) {
        if (word_ref<std::uint32_t>(queued[v]).exchange(1, cuda::std::memory_order_relaxed) == 0) {
          next[queue_slot(next_size)] = v;
          ++t.vertices;
        }
      } else if (word_ref<std::uint32_t>(far_listed[v]).exchange(1, cuda::std::memory_order_relaxed) == 0) {
        far[queue_slot(far_size)] = v;
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

/**
 * @brief Lane step over the far list: lowers *least to dist[far[i]] when that distance is still
 * pending (at or past `bucket_end`, the end of the bucket just processed). An entry below it
 * is stale: its vertex dropped into a processed bucket later and was relaxed there.
 * @note The smallest pending distance gives the next bucket (floor division is monotone). Reads
 * the shared word first and takes the atomic only to lower it, so few lanes contend on it.
 * Relaxed atomics; no distance changes during the step.
 */
template <class Id>
struct sssp_far_min {
  std::uint64_t* dist;
  const Id* far;
  std::uint64_t bucket_end;
  std::uint64_t* least;

  BAM_HD step_totals operator()(std::uint64_t i) const {
    const std::uint64_t d = load_word(dist + far[i]);
    if (d >= bucket_end && d < load_word(least)) {
      word_ref<std::uint64_t>(*least).fetch_min(d, cuda::std::memory_order_relaxed);
    }
    return {};
  }
};

/**
 * @brief Lane step over the far list, once the next bucket [lo, hi) is known: a vertex whose
 * distance lies in it leaves the far list for `frontier`; one past it stays, appended to `kept`
 * (the far list compacted); one below it is stale and dropped.
 * @note No bucket lies between the processed one and lo (lo's bucket holds the smallest pending
 * distance), so every distance below lo is stale. A vertex that leaves never needs the far list
 * again: its distance is below hi, and later relaxations start at lo or above, so they lower it
 * only within [lo, hi), into the current bucket. Every vertex is in the far list at most once;
 * each entry is read by one lane. Relaxed atomics; no distance changes during the step.
 */
template <class Id>
struct sssp_far_split {
  std::uint64_t* dist;
  const Id* far;
  std::uint64_t lo;
  std::uint64_t hi;
  Id* frontier;
  std::uint64_t* frontier_size;
  Id* kept;
  std::uint64_t* kept_size;

  BAM_HD step_totals operator()(std::uint64_t i) const {
    const Id v = far[i];
    const std::uint64_t d = load_word(dist + v);
    step_totals t;
    if (d >= hi) {
      kept[queue_slot(kept_size)] = v;
    } else if (d >= lo) {
      frontier[queue_slot(frontier_size)] = v;
      t.vertices = 1;
    }
    return t;
  }
};

}  // namespace bam::graph::gpu
