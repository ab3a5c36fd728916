// SPDX-License-Identifier: Apache-2.0
// bam::cache: how a lane group acquires its pages: coalescing, the first pass that only pins
// resident pages, admission, then lookups that fill or wait for other fillers.
#pragma once

#include "cache/admission.hpp"
#include "cache/cache_fill.hpp"
#include "cache/coalesce.hpp"
#include "cache/page_key.hpp"
#include "cache/page_table.hpp"
#include "cache/slot_table.hpp"
#include "cache/stats.hpp"

#include <bam/config.hpp>
#include <bam/detail/clock.hpp>
#include <bam/lane_group.hpp>
#include <bam/status.hpp>

#include <cuda/std/bit>

#include <cstddef>
#include <cstdint>

namespace bam::cache {

/// One lane's view of a page it asked for.
struct page_pin {
  status result = status::ok;  ///< ok: `data` is usable until release()
  std::uint32_t slot = 0;      ///< the slot, when ok
  std::byte* data = nullptr;   ///< the page's first byte, when ok
  bool holds_pin = false;      ///< this lane (its peers' leader) holds the pin release() drops
  std::uint32_t admitted = 0;  ///< admission units this lane returns at release() (one lane a group)
};

/**
 * @brief The acquisition layer of cache_ref: a group's passes over its pages (coalesce, pin
 * what is resident, take admission, look up and fill under it), each lane ending with a pin or
 * a failure. cache_ref's acquire, load, store are built on acquire_if.
 */
template <page_backend Backend, cuda::thread_scope Scope = cuda::thread_scope_device>
class cache_acquire : protected cache_fill<Backend, Scope> {
  using base = cache_fill<Backend, Scope>;

 protected:
  using base::base;
  using typename base::outcome;
  using typename base::pending_fill;
  using base::admission_, base::claim_and_fill, base::deadline, base::fill, base::finish_fills,
      base::ranges_, base::retry, base::slot_bytes, base::slots_, base::stats_, base::timeout_ns_;

  BAM_HD static constexpr std::uint64_t pack(outcome o) noexcept {
    return (std::uint64_t{static_cast<std::uint8_t>(o.result)} << 32) | o.slot;
  }
  BAM_HD static constexpr outcome unpack(std::uint64_t w) noexcept {
    return outcome{static_cast<status>(w >> 32), static_cast<std::uint32_t>(w)};
  }

  /// How many time limits a lane waits for other threads' fills before it gives up.
  static constexpr std::uint64_t stall_limit = 64;
  /// How many time limits a group waits at the gate while no unit moves: an admitted group may
  /// hold its units that long without anybody else moving (a lost command's deadline, a lost
  /// write's recovery, a victim's wait).
  static constexpr std::uint64_t gate_stall_limit = 8;

  /**
   * @brief Coalesces, lets each leader look its page up, and hands the result to the peers.
   * @note Passes: the first only pins pages found resident and waits for nothing. If a lane is
   * left unresolved, the group takes admission for all its distinct pages (one lane, result
   * shuffled); when the gate is full it first drops the pins it took, so it holds nothing while
   * it waits. Admitted, leaders fill, evict and wait for other fillers. With a staged backend a
   * fill is published only after the group's collective finish_reads, so a leader must never
   * wait for another thread's fill while its own group holds unpublished ones (it could wait for
   * a page its own group is evicting, or two warps for each other): such lookups return `retry`,
   * the group reads and publishes what it claimed, then the unresolved lanes go round again.
   * That wait is for other threads, each bounded by its own I/O deadlines, so it is not a
   * timeout; only stall_limit time limits end it (a filler that never returns). Without staging,
   * lookups wait in place.
   */
  template <lane_group Group>
  BAM_HD page_pin acquire_if(Group& g, page_key key, access_mode mode, bool valid) const {
    page_pin mine{status::out_of_range, 0, nullptr, false, 0};
    bool unresolved = valid;
    std::uint32_t admitted = 0;  // the group's units, known to every lane
    std::uint64_t limit = 0;     // set when the lane first has to go round again under admission
    detail::backoff wait;
    while (g.ballot(unresolved) != 0) {
      const coalesced_request req = coalesce(g, unresolved ? make_tag(key) : no_page_tag);
      // Peers may mix loads and stores of one page: the leader pins for writing if any peer writes.
      const bool any_write = (g.ballot(unresolved && mode == access_mode::write) & req.peers) != 0;
      const access_mode want = any_write ? access_mode::write : access_mode::read;
      const bool leader = unresolved && req.led_by(g.rank());
      pending_fill pending{};
      outcome led{};
      if (leader) led = admitted != 0 ? lookup(key, want, req.count, pending) : try_hit(key, want);
      led = finish_fills(g, pending, led);
      const outcome o = unpack(g.shfl(pack(led), req.leader));
      if (unresolved && o.result != retry) {
        unresolved = false;
        mine = o.result == status::ok ? page_pin{status::ok, o.slot, slot_bytes(o.slot), leader, 0}
                                      : page_pin{o.result, 0, nullptr, false, 0};
      }
      if (admitted == 0) {  // the first pass
        if (g.ballot(unresolved) != 0) admitted = admit(g, key, valid, unresolved, mine);
        // First-pass hits count once their pins are kept (admit drops the pins when refused).
        if (leader && mine.holds_pin) count_hit(key, req.count);
        if (admitted == 0) break;  // all hit, or every lane failed: stalled or too many pages
        continue;
      }
      // Each lane decides for itself, and the loop's ballot ends the group's passes together.
      if (unresolved) {
        if (limit == 0) limit = detail::now_ns() + stall_limit * timeout_ns_;
        if (detail::now_ns() > limit) {
          unresolved = false;
          mine = page_pin{status::timeout, 0, nullptr, false, 0};
        } else {
          wait();
        }
      }
    }
    // The lowest member returns the group's units at release().
    if (admitted != 0 && g.rank() == unsigned(cuda::std::countr_zero(g.ballot(true)))) mine.admitted = admitted;
    return mine;
  }

  /**
   * @brief Takes admission for the group's distinct pages (collective).
   * @return the units taken, the same on every lane; 0 when the group could not be admitted, in
   * which case every valid lane's pin was dropped and its result is no_slot (more pages than the
   * gate's capacity) or timeout (nothing moved at the gate for gate_stall_limit time limits)
   * @note Tries once while holding the first pass's pins; refused, it drops them (the pinned
   * lanes become unresolved again) and waits.
   */
  template <lane_group Group>
  BAM_HD std::uint32_t admit(Group& g, page_key key, bool valid, bool& unresolved, page_pin& mine) const {
    const coalesced_request all = coalesce(g, valid ? make_tag(key) : no_page_tag);
    const auto k = std::uint32_t(cuda::std::popcount(g.ballot(valid && all.led_by(g.rank()))));
    const unsigned first = unsigned(cuda::std::countr_zero(g.ballot(true)));
    status st = status::ok;
    if (g.rank() == first) {
      st = k > admission_.capacity() ? status::no_slot : admission_.try_enter(k) ? status::ok : retry;
    }
    st = static_cast<status>(g.shfl(std::uint64_t(st), first));
    if (st == retry) {
      drop_first_pass_pin(mine);
      if (valid) {
        unresolved = true;
        mine = page_pin{status::out_of_range, 0, nullptr, false, 0};
      }
      if (g.rank() == first) st = admission_.enter(k, gate_stall_limit * timeout_ns_);
      st = static_cast<status>(g.shfl(std::uint64_t(st), first));
    }
    if (st == status::ok) return k;
    drop_first_pass_pin(mine);
    if (valid) {
      unresolved = false;
      mine = page_pin{st, 0, nullptr, false, 0};
      if (all.led_by(g.rank())) stats_.add(key.range, counter::failures, 1);
    }
    return 0;
  }

  /// Leader, first pass: pins `key` if it is resident, else `retry` (resolved under admission).
  /// Not counted here: acquire_if counts the hit once it keeps the pin.
  BAM_HD outcome try_hit(page_key key, access_mode mode) const {
    const page_entry entry = ranges_[key.range].load(key.page);
    if (!entry.resident() || !slots_.try_pin(entry.slot(), make_tag(key), mode)) return outcome{retry, 0};
    return outcome{status::ok, entry.slot()};
  }

  /// A leader's kept first-pass pin: one hit, its peers coalesced requests.
  BAM_HD void count_hit(page_key key, unsigned requests) const {
    stats_.add(key.range, counter::hits, 1);
    if (requests > 1) stats_.add(key.range, counter::coalesced, requests - 1);
  }

  /// Gives up a first-pass pin before waiting at the gate (the lanes ask again).
  BAM_HD void drop_first_pass_pin(const page_pin& mine) const {
    if (mine.holds_pin) slots_.unpin(mine.slot);
  }

  /// Leader: serves the `requests` lanes wanting `key` and counts what happened.
  BAM_HD outcome lookup(page_key key, access_mode mode, unsigned requests, pending_fill& pending) const {
    const outcome o = lookup_once(key, mode, pending);
    if (o.result == retry) return o;  // counted when it resolves
    if (requests > 1) stats_.add(key.range, counter::coalesced, requests - 1);
    if (o.result != status::ok) stats_.add(key.range, counter::failures, 1);
    return o;
  }

  /**
   * @brief Finds `key` resident and pins it, or fills it, or waits for its filler (with a staged
   * backend: returns `retry` instead of waiting).
   * @note Loop: load the entry (relaxed); if it names a slot, try_pin validates state and tag
   * (a stale entry fails and is re-read); if empty, try_claim makes this thread the filler;
   * otherwise (filling, or the slot is being written back) back off until the deadline, which
   * is set at the first miss so that hits never read the clock.
   */
  BAM_HD outcome lookup_once(page_key key, access_mode mode, pending_fill& pending) const {
    const page_table_ref<Scope> table = ranges_[key.range];
    const std::uint64_t tag = make_tag(key);
    page_entry entry = table.load(key.page);
    if (entry.resident() && slots_.try_pin(entry.slot(), tag, mode)) {
      stats_.add(key.range, counter::hits, 1);
      return outcome{status::ok, entry.slot()};
    }
    if constexpr (staged_backend<Backend>) {  // never wait here: see acquire_if
      return entry.empty() ? claim_and_fill(table, key, mode, pending, true) : outcome{retry, 0};
    }
    stats_.add(key.range, counter::misses, 1);
    const std::uint64_t limit = deadline();
    detail::backoff wait;
    for (;;) {
      if (entry.empty() && table.try_claim(key.page)) return fill(table, key, mode, limit, pending, true);
      if (detail::now_ns() > limit) return outcome{status::timeout, 0};
      wait();
      entry = table.load(key.page);
      if (entry.resident() && slots_.try_pin(entry.slot(), tag, mode)) return outcome{status::ok, entry.slot()};
    }
  }
};

}  // namespace bam::cache
