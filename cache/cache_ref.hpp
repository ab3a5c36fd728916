// SPDX-License-Identifier: Apache-2.0
// bam::cache: the page-cache protocol (lookup → miss → evict + write-back → fetch → pin → use →
// unpin) over a Backend, written once for host threads and GPU warps.
#pragma once

#include "cache/admission.hpp"
#include "cache/backend.hpp"
#include "cache/clock_policy.hpp"
#include "cache/coalesce.hpp"
#include "cache/page_key.hpp"
#include "cache/page_state.hpp"
#include "cache/page_table.hpp"
#include "cache/slot_table.hpp"
#include "cache/stats.hpp"

#include <bam/config.hpp>
#include <bam/detail/clock.hpp>
#include <bam/lane_group.hpp>
#include <bam/status.hpp>

#include <cuda/std/cstring>
#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bam::cache {

/// Run-time parameters of a cache.
struct cache_options {
  std::size_t page_bytes = 4096;             ///< bytes per page and per slot (valid_page_bytes)
  std::uint64_t timeout_ns = 1'000'000'000;  ///< bound on each wait of one request or flush
};

/**
 * @brief Whether `page_bytes` can be a cache page over storage of `block_bytes` blocks.
 * @return true when the block size is a power of two of at least 512 B and the page is a whole
 * number (>= 1) of blocks; there is no upper bound (2 MiB pages and larger are fine)
 */
BAM_HD constexpr bool valid_page_bytes(std::size_t page_bytes, std::size_t block_bytes) noexcept {
  return block_bytes >= 512 && (block_bytes & (block_bytes - 1)) == 0 && page_bytes >= block_bytes &&
         page_bytes % block_bytes == 0;
}

/// The memory a cache_ref works in, all provided (zeroed) and owned by the host-side owner.
template <cuda::thread_scope Scope = cuda::thread_scope_device>
struct cache_storage {
  cuda::std::span<std::uint32_t> slot_states;           ///< n_slots state words
  cuda::std::span<std::uint64_t> slot_tags;             ///< n_slots tags
  cuda::std::span<std::byte> slot_data;                 ///< n_slots * page_bytes bytes (VRAM)
  std::uint64_t* clock_hand = nullptr;                  ///< one word
  std::uint64_t* admission = nullptr;                   ///< one word (admission_ref)
  cuda::std::span<const page_table_ref<Scope>> ranges;  ///< one page table per range id
  cuda::std::span<std::uint64_t> stats;                 ///< stats_ref::words(ranges.size(), shards)
};

/// One lane's view of a page it asked for.
struct page_pin {
  status result = status::ok;  ///< ok: `data` is usable until release()
  std::uint32_t slot = 0;      ///< the slot, when ok
  std::byte* data = nullptr;   ///< the page's first byte, when ok
  bool holds_pin = false;      ///< this lane (its peers' leader) holds the pin release() drops
  std::uint32_t admitted = 0;  ///< admission units this lane returns at release() (one lane a group)
};


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
 * any warp); more end in no_slot. A
 * group that holds pinned pages (acquire() without release()) must not acquire more while it
 * holds them: it would wait for admission that its own pages keep from others.
 */
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

template <page_backend Backend, cuda::thread_scope Scope = cuda::thread_scope_device>
class cache_ref {
 public:
  using backend_type = Backend;  ///< the backend's type

  /**
   * @brief Views the owner's storage.
   * @param storage the arrays; slot_data holds slot_states.size() * options.page_bytes bytes
   * @param options page size (valid_page_bytes) and time limit
   * @param backend how pages reach storage; copied
   */
  BAM_HD cache_ref(const cache_storage<Scope>& storage, cache_options options, Backend backend) noexcept
      : slots_(storage.slot_states, storage.slot_tags),
        clock_(storage.clock_hand),
        admission_(storage.admission, static_cast<std::uint32_t>(storage.slot_states.size())),
        ranges_(storage.ranges.data()),
        stats_(storage.stats, static_cast<std::uint32_t>(storage.ranges.size())),
        data_(storage.slot_data.data()),
        page_bytes_(options.page_bytes),
        timeout_ns_(options.timeout_ns),
        n_ranges_(static_cast<std::uint32_t>(storage.ranges.size())),
        backend_(backend) {}

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
  /// A leader's result, as shuffled to its peers.
  struct outcome {
    status result;
    std::uint32_t slot;
  };
  BAM_HD static constexpr std::uint64_t pack(outcome o) noexcept {
    return (std::uint64_t{static_cast<std::uint8_t>(o.result)} << 32) | o.slot;
  }
  BAM_HD static constexpr outcome unpack(std::uint64_t w) noexcept {
    return outcome{static_cast<status>(w >> 32), static_cast<std::uint32_t>(w)};
  }

  BAM_HD bool in_range(page_key key) const noexcept {
    return key.range < n_ranges_ && key.page < ranges_[key.range].size();
  }
  template <class T>
  BAM_HD bool fits(std::size_t offset) const noexcept {
    return offset <= page_bytes_ && sizeof(T) <= page_bytes_ - offset;
  }
  BAM_HD std::byte* slot_bytes(std::uint32_t slot) const noexcept {
    return data_ + std::size_t{slot} * page_bytes_;
  }
  BAM_HD page_io io(page_key key, std::uint32_t slot, std::uint64_t deadline) const noexcept {
    return page_io{key, slot, cuda::std::span<std::byte>(slot_bytes(slot), page_bytes_), deadline};
  }
  BAM_HD std::uint64_t deadline() const noexcept { return detail::now_ns() + timeout_ns_; }
  BAM_HD void count_write_back(std::uint32_t range) const noexcept {
    stats_.add(range, counter::write_backs, 1);
    stats_.add(range, counter::bytes_written, page_bytes_);
  }

  /// How many time limits a lane waits for other threads' fills before it gives up.
  static constexpr std::uint64_t stall_limit = 64;
  /// How many time limits a group waits at the gate while no unit moves: an admitted group may
  /// hold its units that long without anybody else moving (a lost command's deadline, a lost
  /// write's recovery, a victim's wait).
  static constexpr std::uint64_t gate_stall_limit = 8;

  /// Internal result of a staged lookup that found the page being filled or evicted by another
  /// thread: the lane asks again after its group published its own fills.
  static constexpr status retry = static_cast<status>(0xff);

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

  /// A fill whose read a staged backend recorded (the slot is busy, the entry claimed);
  /// complete_fill() publishes it once finish_reads() performed it, abort_fill() undoes it.
  struct pending_fill {
    page_table_ref<Scope> table{};
    page_key key{};
    access_mode mode = access_mode::read;
    std::uint32_t slot = 0;
    typename staging_of<Backend>::type staged{};
  };

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
  BAM_HD void drop_first_pass_pin(page_pin& mine) const {
    if (mine.holds_pin) slots_.unpin(mine.slot);
    mine.holds_pin = false;
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

  slot_table_ref<Scope> slots_;
  clock_policy_ref<Scope> clock_;
  admission_ref<Scope> admission_;
  const page_table_ref<Scope>* ranges_;
  stats_ref<Scope> stats_;
  std::byte* data_;
  std::size_t page_bytes_;
  std::uint64_t timeout_ns_;
  std::uint32_t n_ranges_;
  Backend backend_;
};

}  // namespace bam::cache
