// SPDX-License-Identifier: Apache-2.0
// bam::cache: the page-cache protocol (lookup → miss → evict + write-back → fetch → pin → use →
// unpin) over a Backend, written once for host threads and GPU warps. This is its public
// surface; the layers under it are cache_acquire.hpp, cache_fill.hpp and cache_core.hpp.
#pragma once

#include "cache/admission.hpp"
#include "cache/backend.hpp"
#include "cache/cache_acquire.hpp"
#include "cache/cache_storage.hpp"
#include "cache/coalesce.hpp"
#include "cache/page_key.hpp"
#include "cache/slot_table.hpp"
#include "cache/stats.hpp"

#include <bam/config.hpp>
#include <bam/lane_group.hpp>
#include <bam/status.hpp>

#include <cuda/std/cstring>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bam::cache {

/**
 * @brief The device-side view of a page cache: trivially copyable, passed to kernels by value.
 *
 * Requests are made by a lane group (a warp, `single_lane`, or a test's cpu_warp). Lanes
 * asking for the same page are coalesced: one leader looks it up, fills it on a miss, and pins it
 * once for all of them; leaders of distinct pages work in parallel. A miss claims the page's
 * table entry, has the clock claim a victim slot, writes the victim back through the backend if
 * it is dirty, unmaps it, reads the new page through the backend, then publishes the slot.
 *
 * Guarantees (each rests on the invariants of slot_table_ref and page_table_ref):
 * - A pinned slot is never claimed, so its bytes never change under a reader (unless a writer
 *   of the same page changes them).
 * - A reader uses a slot only after pinning it and seeing `valid` with its page's tag, so it
 *   never reads a slot that is being written back or refilled for another page.
 * - A page is refilled only after its write-back completed (its entry is cleared after).
 * - Progress at any size: a group first tries to find all its pages resident, waiting for
 *   nothing. A group that must wait (a miss, another thread's fill) holds admission for its
 *   distinct pages (admission_ref) before it holds anything while waiting, or else drops its
 *   pins first; so pinned and claimed slots of waiting groups never exhaust the cache, and a
 *   small cache is slower, not failing.
 * - Every wait is bounded. Waiting for other threads is not a timeout: it ends only when the
 *   gate did not move for gate_stall_limit time limits, or after stall_limit of them (a filler
 *   that never returns); a victim is waited for one time limit (no_slot); calls into the
 *   backend are bounded by the deadline the backend receives.
 *
 * Backend contract: see cache/backend.hpp (`read_page`/`write_page` on one page_io, called by one
 * thread, deadline included).
 *
 * @tparam Backend a cache::backend, stored by value
 * @tparam Scope the scope of every atomic (system when host threads share the cache with GPUs)
 * @note Requirements: a group asks for at most n_slots distinct pages at once (32 slots serve
 * any warp); more end in no_slot. A group that holds pinned pages (acquire() without release())
 * must not acquire more while it holds them: it would wait for admission that its own pages keep
 * from others.
 */
template <page_backend Backend, cuda::thread_scope Scope = cuda::thread_scope_device>
class cache_ref : private cache_acquire<Backend, Scope> {
  using base = cache_acquire<Backend, Scope>;
  using typename base::outcome;
  using typename base::pending_fill;
  using base::acquire_if, base::admission_, base::finish_fills, base::flush_slot, base::n_ranges_,
      base::page_bytes_, base::ranges_, base::retry, base::slots_, base::start_prefetch, base::stats_;

 public:
  using backend_type = Backend;  ///< the backend's type

  /**
   * @brief Views the owner's storage.
   * @param storage the arrays; slot_data holds slot_states.size() * options.page_bytes bytes
   * @param options page size (valid_page_bytes) and time limit
   * @param backend how pages reach storage; copied
   */
  BAM_HD cache_ref(const cache_storage<Scope>& storage, cache_options options, Backend backend) noexcept
      : base(storage, options, backend) {}

  BAM_HD std::size_t page_bytes() const noexcept { return page_bytes_; }  ///< bytes per page
  BAM_HD std::uint32_t n_slots() const noexcept { return slots_.size(); }  ///< slots
  BAM_HD std::uint32_t n_ranges() const noexcept { return n_ranges_; }     ///< range ids
  BAM_HD const stats_ref<Scope>& stats() const noexcept { return stats_; }  ///< counters
  BAM_HD const slot_table_ref<Scope>& slots() const noexcept { return slots_; }  ///< slot states
  BAM_HD const admission_ref<Scope>& admission() const noexcept { return admission_; }  ///< the gate

  /**
   * @brief Makes `key` resident and pins it for the caller's lane and its peers.
   * @param g the caller's group (collective: every member calls, each with its own key)
   * @param key the page this lane wants
   * @param mode write marks the page dirty (it is still read from storage first)
   * @return per lane: ok with the page's bytes, or out_of_range, timeout, no_slot, io_error
   * @note Every lane must later call release() with the returned pin, collectively. The pin
   * keeps the slot from being evicted: hold it briefly.
   */
  template <lane_group Group>
  BAM_HD page_pin acquire(Group& g, page_key key, access_mode mode) const {
    return acquire_if(g, key, mode, in_range(key));
  }

  /**
   * @brief Ends the use of a page pinned by acquire() (collective).
   * @note The group syncs, so every peer is done with the bytes, then the leader unpins
   * (release order: the peers' accesses happen before any later eviction of the slot), and the
   * lane that holds the group's admission returns it.
   */
  template <lane_group Group>
  BAM_HD void release(Group& g, const page_pin& pin) const {
    g.sync();
    if (pin.holds_pin) slots_.unpin(pin.slot);
    if (pin.admitted != 0) admission_.leave(pin.admitted);
  }

  /**
   * @brief Reads a `T` at byte `offset` of page `key` (collective; lanes coalesce per page).
   * @param out receives the value when the result is ok
   * @return ok, or why not; out_of_range also when the value would cross the page's end
   */
  template <class T, lane_group Group>
  BAM_HD status load(Group& g, page_key key, std::size_t offset, T& out) const {
    static_assert(std::is_trivially_copyable_v<T>);
    const page_pin pin = acquire_if(g, key, access_mode::read, in_range(key) && fits<T>(offset));
    if (pin.result == status::ok) cuda::std::memcpy(&out, pin.data + offset, sizeof(T));
    release(g, pin);
    return pin.result;
  }

  /**
   * @brief Writes `value` at byte `offset` of page `key` (collective); the page becomes dirty
   * and reaches the backend on eviction or flush().
   * @return ok, or why not; out_of_range also when the value would cross the page's end
   * @note Lanes writing the same bytes of one page race as plain stores do.
   */
  template <class T, lane_group Group>
  BAM_HD status store(Group& g, page_key key, std::size_t offset, const T& value) const {
    static_assert(std::is_trivially_copyable_v<T>);
    const page_pin pin = acquire_if(g, key, access_mode::write, in_range(key) && fits<T>(offset));
    if (pin.result == status::ok) cuda::std::memcpy(pin.data + offset, &value, sizeof(T));
    release(g, pin);
    return pin.result;
  }

  /**
   * @brief Starts reading `key` into the cache unless it is resident or being filled: a hint
   * that lets a group put many reads in flight ahead of its accesses (collective; each member
   * names its own page).
   * @param want false for members with nothing to ask
   * @note Never waits for another thread and leaves no pin: a leader that finds the page's entry
   * empty claims it and fills it only if the clock offers a victim at once, then publishes the
   * page and drops the filler's pin. A page found resident or being filled, one outside the
   * ranges, or one without a free slot is left alone. The fill counts as a miss (the access
   * that later finds the page counts a hit); an NVMe failure is recorded by the backend as on
   * any miss, and the page stays absent. With a staged backend the group's reads are performed
   * together: the call returns when they completed.
   */
  template <lane_group Group>
  BAM_HD void prefetch(Group& g, page_key key, bool want) const {
    const bool valid = want && in_range(key);
    const coalesced_request req = coalesce(g, valid ? make_tag(key) : no_page_tag);
    pending_fill pending{};
    outcome o{retry, 0};
    if (valid && req.led_by(g.rank())) o = start_prefetch(key, pending);
    o = finish_fills(g, pending, o);
    if (o.result == status::ok) slots_.unpin(o.slot);  // the filler's pin: the page stays, unpinned
  }

  /**
   * @brief Writes back the dirty slots `first_slot`, `first_slot + stride`, ... (one thread; a
   * kernel spreads the slots over its threads with first = thread id, stride = thread count).
   * @return ok, or the first failure (io_error, or timeout when a dirty slot stayed pinned or
   * busy); the other slots are still visited
   * @note Each dirty, unpinned slot is claimed (busy), written, and restored valid and clean;
   * readers of that page wait meanwhile. Complete for every write whose release happened before
   * the call; pages written concurrently may stay dirty.
   */
  BAM_HD status flush(std::uint32_t first_slot = 0, std::uint32_t stride = 1) const {
    status result = status::ok;
    for (std::uint64_t slot = first_slot; slot < slots_.size(); slot += stride) {
      const status st = flush_slot(static_cast<std::uint32_t>(slot));
      if (result == status::ok) result = st;
    }
    return result;
  }

 private:
  BAM_HD bool in_range(page_key key) const noexcept {
    return key.range < n_ranges_ && key.page < ranges_[key.range].size();
  }
  template <class T>
  BAM_HD bool fits(std::size_t offset) const noexcept {
    return offset <= page_bytes_ && sizeof(T) <= page_bytes_ - offset;
  }
};

}  // namespace bam::cache
