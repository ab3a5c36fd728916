// SPDX-License-Identifier: Apache-2.0
// bam::cache: the filler's and the flusher's side of the protocol: claim a victim, write it back
// if dirty, read the page, publish the slot (or undo the fill); write one dirty slot back.
#pragma once

#include "cache/backend.hpp"
#include "cache/cache_core.hpp"
#include "cache/clock_policy.hpp"
#include "cache/page_key.hpp"
#include "cache/page_state.hpp"
#include "cache/page_table.hpp"
#include "cache/slot_table.hpp"
#include "cache/stats.hpp"

#include <bam/config.hpp>
#include <bam/detail/clock.hpp>
#include <bam/lane_group.hpp>
#include <bam/status.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>

namespace bam::cache {

/// The staging record of a staged backend; for other backends, a record that is never active.
template <class Backend>
struct staging_of {
  struct type {
    BAM_HD bool active() const noexcept { return false; }
  };
};
template <staged_backend Backend>
struct staging_of<Backend> {
  using type = typename Backend::staged;
};

/**
 * @brief The fill layer of cache_ref: a filler owns a page's claimed entry and brings the page
 * into a victim slot; a flusher writes one dirty slot back. cache_acquire and cache_ref call it.
 */
template <page_backend Backend, cuda::thread_scope Scope = cuda::thread_scope_device>
class cache_fill : protected cache_core<Backend, Scope> {
  using base = cache_core<Backend, Scope>;

 protected:
  using base::base;
  using typename base::outcome;
  using base::backend_, base::clock_, base::deadline, base::page_bytes_, base::ranges_, base::retry,
      base::slot_bytes, base::slots_, base::stats_, base::timeout_ns_;

  BAM_HD page_io io(page_key key, std::uint32_t slot, std::uint64_t deadline) const noexcept {
    return page_io{key, slot, cuda::std::span<std::byte>(slot_bytes(slot), page_bytes_), deadline};
  }
  BAM_HD void count_write_back(std::uint32_t range) const noexcept {
    stats_.add(range, counter::write_backs, 1);
    stats_.add(range, counter::bytes_written, page_bytes_);
  }

  /// A fill whose read a staged backend recorded (the slot is busy, the entry claimed);
  /// complete_fill() publishes it once finish_reads() performed it, abort_fill() undoes it.
  struct pending_fill {
    page_table_ref<Scope> table{};
    page_key key{};
    access_mode mode = access_mode::read;
    std::uint32_t slot = 0;
    typename staging_of<Backend>::type staged{};
  };

  /// Prefetch leader: claims an empty entry and fills it without waiting for a victim.
  BAM_HD outcome start_prefetch(page_key key, pending_fill& pending) const {
    const page_table_ref<Scope> table = ranges_[key.range];
    return table.load(key.page).empty() ? claim_and_fill(table, key, access_mode::read, pending, false)
                                        : outcome{retry, 0};
  }

  /// Claims the entry of `key` (found empty) and fills it, counted as a miss; `retry` when
  /// another thread claimed it first.
  BAM_HD outcome claim_and_fill(page_table_ref<Scope> table, page_key key, access_mode mode, pending_fill& pending,
                                bool wait_for_victim) const {
    if (!table.try_claim(key.page)) return outcome{retry, 0};
    stats_.add(key.range, counter::misses, 1);
    return fill(table, key, mode, deadline(), pending, wait_for_victim);
  }

  /**
   * @brief With a staged backend, the group performs the reads its leaders recorded
   * (collective), then each such leader publishes its fill, or undoes it when the read failed.
   * @return the published or undone fill's outcome for those leaders; `o` for every other lane,
   * and always without staging
   */
  template <lane_group Group>
  BAM_HD outcome finish_fills(Group& g, pending_fill& pending, outcome o) const {
    if constexpr (staged_backend<Backend>) {
      const status read = backend_.finish_reads(g, pending.staged);
      if (pending.staged.active()) return read == status::ok ? complete_fill(pending) : abort_fill(pending, read);
    }
    return o;
  }

  /**
   * @brief Filler (owns the entry of `key`): claims a victim, evicts it, reads the page into it,
   * and publishes it pinned once for the caller (complete_fill) — or, when a staged backend
   * still owes the copy, leaves slot and entry claimed in `pending` for acquire_if to publish
   * after finish_reads. On failure the entry is cleared again. Without `wait_for_victim`, a
   * clock sweep that finds no victim ends the fill with no_slot at once (prefetch). A victim
   * whose write-back fails stays resident and dirty (evict), and the fill takes another, until
   * the time limit: only then does the write-back's failure become this access's.
   */
  BAM_HD outcome fill(page_table_ref<Scope> table, page_key key, access_mode mode,
                      std::uint64_t limit, pending_fill& pending, bool wait_for_victim) const {
    const std::uint32_t steps = clock_policy_ref<Scope>::default_steps(slots_.size());
    detail::backoff wait;
    victim v{};
    for (;;) {
      v = clock_.find_victim(slots_, steps);
      status st = v.result;
      if (st == status::ok && v.prior.state() == slot_state::valid) st = evict(v.slot, v.prior, limit);
      if (st == status::ok) break;
      if (!wait_for_victim || detail::now_ns() > limit) {
        table.clear(key.page);
        return outcome{st, 0};
      }
      wait();
    }
    status st = status::ok;
    if constexpr (staged_backend<Backend>) {
      st = backend_.start_read(io(key, v.slot, limit), pending.staged);
    } else {
      st = backend_.read_page(io(key, v.slot, limit));
    }
    if (st != status::ok) {
      slots_.abort(v.slot);
      table.clear(key.page);
      return outcome{st, 0};
    }
    pending.table = table;
    pending.key = key;
    pending.mode = mode;
    pending.slot = v.slot;
    if (pending.staged.active()) return outcome{status::ok, v.slot};  // published by complete_fill
    return complete_fill(pending);
  }

  /// Gives up a fill whose read failed: the slot becomes free and the entry empty again.
  BAM_HD outcome abort_fill(const pending_fill& p, status why) const {
    slots_.abort(p.slot);
    p.table.clear(p.key.page);
    stats_.add(p.key.range, counter::failures, 1);
    return outcome{why, 0};
  }

  /**
   * @brief Publishes a filled slot: valid and pinned once for the filler, then named by the
   * page's entry.
   * @note Order: finish_fill (release, slot valid and pinned) before publish (release), so the
   * slot cannot be evicted before the entry names it and a reader following the entry finds it.
   */
  BAM_HD outcome complete_fill(const pending_fill& p) const {
    stats_.add(p.key.range, counter::bytes_read, page_bytes_);
    slots_.finish_fill(p.slot, make_tag(p.key), 1, p.mode);
    p.table.publish(p.key.page, p.slot);
    return outcome{status::ok, p.slot};
  }

  /**
   * @brief Owner of a claimed valid slot: writes its page back if dirty, then unmaps it.
   * @return ok, or the write-back's failure, after which the slot is restored valid and dirty
   * @note The entry is cleared (release) only after the write-back returned, so whoever refills
   * the page (claiming the entry with acquire) reads the new bytes from the backend.
   */
  BAM_HD status evict(std::uint32_t slot, page_state prior, std::uint64_t limit) const {
    const page_key old = slots_.key(slot);
    if (prior.dirty()) {
      const status st = backend_.write_page(io(old, slot, limit));
      if (st != status::ok) {
        slots_.restore(slot, true, prior.referenced());
        return st;
      }
      count_write_back(old.range);
    }
    ranges_[old.range].clear(old.page);
    stats_.add(old.range, counter::evictions, 1);
    return status::ok;
  }

  /// Writes one slot back if it is valid and dirty, waiting (bounded) while it is pinned or busy
  /// or while the backend has no pair in service (a recovery: up to a few time limits).
  BAM_HD status flush_slot(std::uint32_t slot) const {
    const std::uint64_t limit = detail::now_ns() + 4 * timeout_ns_;
    detail::backoff wait;
    for (;;) {
      const page_state seen = slots_.load(slot);
      if (seen.state() == slot_state::invalid ||
          (seen.state() == slot_state::valid && !seen.dirty())) {
        return status::ok;
      }
      if (seen.claimable() && slots_.try_claim(slot, seen)) {
        const page_key key = slots_.key(slot);
        const status st = backend_.write_page(io(key, slot, limit));
        slots_.restore(slot, st != status::ok, seen.referenced());
        if (st == status::ok) count_write_back(key.range);
        // queue_failed: no write was sent (no pair in service); try again.
        if (st != status::queue_failed || detail::now_ns() > limit) return st;
      }
      if (detail::now_ns() > limit) return status::timeout;
      wait();
    }
  }

};

}  // namespace bam::cache
