// SPDX-License-Identifier: Apache-2.0
// What the per-vertex steps share, written once for GPU warps and CPU threads: the totals a
// step reports, relaxed atomics on result words, a warp-wide sum, frontier queue appends, and
// how many cache slots a storage's readers may pin.
#pragma once

#include "apps/graph/gpu/edge_storage.hpp"

#include <bam/config.hpp>
#include <bam/lane_group.hpp>

#include <cuda/atomic>
#include <cuda/std/bit>
#include <nv/target>

#include <cstdint>

namespace bam::graph::gpu {

/**
 * @brief What one step reports, summed over every lane of every group by the executor.
 * @note Each lane returns its own share (a group's edge count may come from rank 0 alone).
 */
struct step_totals {
  std::uint64_t edges = 0;     ///< neighbor entries read
  std::uint64_t vertices = 0;  ///< vertices found or changed (BFS: newly reached)
  std::uint64_t degrees = 0;   ///< sum of the degrees of those vertices
  double change = 0;           ///< PageRank: L1 change

  BAM_HD step_totals& operator+=(const step_totals& o) {
    edges += o.edges;
    vertices += o.vertices;
    degrees += o.degrees;
    change += o.change;
    return *this;
  }
  BAM_HD friend step_totals operator+(step_totals a, const step_totals& b) { return a += b; }
};

/// Result words are shared by every thread of a step and only ever accessed through these
/// relaxed device-scope atomics; a kernel boundary (thread join on the CPU) orders steps.
template <class T>
using word_ref = cuda::atomic_ref<T, cuda::thread_scope_device>;

template <class T>
BAM_HD T load_word(T* p) {
  return word_ref<T>(*p).load(cuda::std::memory_order_relaxed);
}
template <class T>
BAM_HD void store_word(T* p, T v) {
  word_ref<T>(*p).store(v, cuda::std::memory_order_relaxed);
}

/**
 * @brief Sum of `v` over the group, returned to every member.
 * @pre Collective; dense ranks and a power-of-two size (a full warp or a single lane).
 */
template <lane_group Group>
BAM_HD double group_sum(Group& g, double v) {
  for (unsigned offset = g.size() / 2; offset > 0; offset /= 2) {
    const std::uint64_t other = g.shfl(cuda::std::bit_cast<std::uint64_t>(v), g.rank() ^ offset);
    v += cuda::std::bit_cast<double>(other);
  }
  return v;
}

/**
 * @brief Reserves one entry of a queue whose fill count is `*tail` and returns its index.
 * @note Not collective: any subset of a warp's lanes may call it together. On the GPU the lanes
 * that arrive together take their entries with one atomic (warp-aggregated, the coalesced
 * group of __activemask()); on the host each call is one relaxed fetch_add. Entries are written
 * by the caller and read only after the step (kernel boundary or join).
 */
BAM_HD inline std::uint64_t queue_slot(std::uint64_t* tail) {
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE,
      (const unsigned mask = __activemask(); unsigned lane; asm("mov.u32 %0, %%laneid;" : "=r"(lane));
       const int leader = __ffs(mask) - 1; unsigned long long base = 0;
       if (int(lane) == leader) base = word_ref<std::uint64_t>(*tail).fetch_add(__popc(mask), cuda::std::memory_order_relaxed);
       base = __shfl_sync(mask, base, leader);
       return base + __popc(mask & ((1u << lane) - 1));),
      (return word_ref<std::uint64_t>(*tail).fetch_add(1, cuda::std::memory_order_relaxed);))
}

/// Lane step: p[i] = value.
template <class T>
struct fill_step {
  T* p;
  T value;
  BAM_HD step_totals operator()(std::uint64_t i) const {
    p[i] = value;
    return {};
  }
};

/// Lane step: p[i] = i.
template <class T>
struct iota_step {
  T* p;
  BAM_HD step_totals operator()(std::uint64_t i) const {
    p[i] = static_cast<T>(i);
    return {};
  }
};

/// Slots of the cache behind a storage (0: plain memory, nothing to pin).
template <class T>
BAM_HD std::uint64_t pin_slots(const cached_edges<T>& e) {
  return e.array_view().cache().slots().size();
}
template <class T>
BAM_HD std::uint64_t pin_slots(const pointer_edges<T>&) {
  return 0;
}

}  // namespace bam::graph::gpu
