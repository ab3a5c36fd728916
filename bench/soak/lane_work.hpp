// SPDX-License-Identifier: Apache-2.0
// bench/soak: the work of one lane in one phase, written once for GPU warps
// (bam::warp_group), lone host threads (single_lane) and lock-step host groups.
#pragma once

#include "bench/soak/counts.hpp"
#include "bench/soak/phase.hpp"

#include <bam/config.hpp>
#include <bam/detail/clock.hpp>
#include <bam/lane_group.hpp>

#include <cuda/std/cstring>

#include <cstdint>

namespace bam::bench::soak {

/**
 * @brief Draws up to `p.ops_per_lane` accesses for lane `lane` and performs each through the
 * page cache, checking every value against the model; merges the lane's counts into
 * `*p.counts` at the end.
 *
 * Every access takes the path bam::array's own accesses take: cache_ref::acquire pins the
 * element's page (for writing when the lane stores or adds), the lane touches its element in
 * the slot, and cache_ref::release unpins it. Reads, stores and fetch_adds of a group's lanes
 * go through one acquire together, so a warp mixes them freely (peers of one page are pinned
 * for writing if any of them writes); a lane without an access this round passes a key
 * outside the array, which the cache answers out_of_range without looking anything up.
 * - read: the element must equal model[i];
 * - store: the old value must equal model[i]; then stored_value(phase, i) is written and
 *   model[i] set (the lane owns i for the phase, see next_draw);
 * - add: a device-scope fetch_add of 1 on the cached counter (as basic_array::fetch_add),
 *   whose old value must lie within 2^32 above the counter's start; then added[c] += 1.
 * A failed access changes nothing (the cache performs no part of it) and is counted by status.
 *
 * @pre Collective: every member of `g` calls with the same `p`; lane ids are distinct over the
 * whole phase.
 * @note The group stops together (a ballot) once `p.phase_ns` passed since it started.
 */
template <lane_group Group>
BAM_HD void lane_work(Group& g, const phase_params& p, std::uint64_t lane) {
  lane_counts c;
  const auto& cache = p.data.cache();
  const std::uint32_t per_page = p.data.elems_per_page();
  const std::uint64_t start = detail::now_ns();
  for (std::uint32_t k = 0; k < p.ops_per_lane; ++k) {
    if (g.ballot(detail::now_ns() - start > p.phase_ns) != 0) break;
    const draw d = next_draw(p, lane, k, c);
    const bool counter = d.what == op::add;
    const cache::page_key key{counter ? p.counters.range_id() : p.data.range_id(),
                              d.what == op::none ? ~std::uint64_t{0} >> 1 : d.index / per_page};
    const cache::page_pin pin =
        cache.acquire(g, key, d.what == op::read ? cache::access_mode::read : cache::access_mode::write);
    if (d.what != op::none && pin.result != status::ok) {
      c.fail(pin.result);
    } else if (d.what != op::none) {
      auto* slot = reinterpret_cast<std::uint64_t*>(pin.data) + d.index % per_page;
      std::uint64_t v = 0;
      if (d.what == op::read || d.what == op::store) {
        cuda::std::memcpy(&v, slot, sizeof v);
        const std::uint64_t expected = p.model[d.index];
        if (v != expected) {
          ++c.wrong;
          note_wrong(*p.counts, d.what == op::read ? wrong_kind::read : wrong_kind::before_store, d.index, expected, v);
        }
      }
      if (d.what == op::read) {
        ++c.reads;
      } else if (d.what == op::store) {
        const std::uint64_t w = stored_value(p.phase, d.index);
        cuda::std::memcpy(slot, &w, sizeof w);
        p.model[d.index] = w;
        ++c.stores;
      } else {
        v = detail::atomic<std::uint64_t, cuda::thread_scope_device>(*slot).fetch_add(1, cuda::std::memory_order_relaxed);
        const std::uint64_t start_value = counter_start(p, d.index);
        if (v - start_value >= (std::uint64_t{1} << 32)) {
          ++c.wrong;
          note_wrong(*p.counts, wrong_kind::add_old, d.index, start_value, v);
        }
        detail::atomic<std::uint64_t, cuda::thread_scope_device>(p.added[d.index])
            .fetch_add(1, cuda::std::memory_order_relaxed);
        ++c.adds;
      }
    }
    cache.release(g, pin);
  }
  merge(c, *p.counts);
}

}  // namespace bam::bench::soak
