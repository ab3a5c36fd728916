// SPDX-License-Identifier: Apache-2.0
// bam::cache: per-slot state words and tags, and the atomic transitions between them.
#pragma once

#include "cache/page_key.hpp"
#include "cache/page_state.hpp"

#include <bam/config.hpp>
#include <bam/detail/atomic.hpp>

#include <cuda/atomic>
#include <cuda/std/span>

#include <cstdint>
#include <type_traits>

namespace bam::cache {

/// What a pinned page will be used for.
enum class access_mode : std::uint8_t {
  read,   ///< bytes are only read
  write,  ///< bytes may be written: the slot is marked dirty
};

/**
 * @brief A non-owning view of the slots' state words and tags.
 *
 * Slot lifecycle (all transitions are atomic operations on the state word):
 * ```
 *   invalid --try_claim--> busy --finish_fill--> valid --try_claim--> busy (write back, refill)
 *                           |  <--abort-- (failed fill: back to invalid)
 *                           `--restore--> valid (failed write-back, or flush done: same page)
 * ```
 * Invariants:
 * - Only the thread whose try_claim succeeded changes a busy slot's tag or bytes (its owner).
 * - A slot is claimed only with pin count 0 and state != busy, in one CAS: no slot is reused
 *   while a pin is held.
 * - A pin counts only if the pinner observed `valid` with the expected tag after incrementing;
 *   otherwise it is undone at once. Such transient increments can hit any state, so busy-state
 *   transitions add a delta (page_state::transition) instead of storing a word.
 *
 * @tparam Scope the scope of every atomic (device by default; system when host threads and GPU
 * threads share the cache)
 * @note The owner provides `states` zeroed (every slot invalid) and `tags` of the same length.
 * The view is trivially copyable; pass it by value.
 */
template <cuda::thread_scope Scope = cuda::thread_scope_device>
class slot_table_ref {
 public:
  /**
   * @brief Views the owner's arrays.
   * @param states one state word per slot (page_state raw values), zeroed initially
   * @param tags one tag per slot (make_tag of the page a valid slot holds)
   */
  BAM_HD slot_table_ref(cuda::std::span<std::uint32_t> states,
                        cuda::std::span<std::uint64_t> tags) noexcept
      : states_(states.data()), tags_(tags.data()), n_slots_(static_cast<std::uint32_t>(states.size())) {}

  /// Number of slots.
  BAM_HD std::uint32_t size() const noexcept { return n_slots_; }

  /**
   * @brief A snapshot of a slot's state word.
   * @note Relaxed: callers act on it only through a later CAS or RMW that re-checks it.
   */
  BAM_HD page_state load(std::uint32_t slot) const noexcept {
    return page_state(state(slot).load(cuda::std::memory_order_relaxed));
  }

  /**
   * @brief The page a slot holds.
   * @note Meaningful only to a thread that holds a pin on the slot or owns it (busy): then no
   * one can change it. Relaxed; the pin or claim supplied the ordering.
   */
  BAM_HD page_key key(std::uint32_t slot) const noexcept {
    return tag_key(tag(slot).load(cuda::std::memory_order_relaxed));
  }

  /**
   * @brief Pins a slot if it holds `tag` and is valid; sets the reference bit, and the dirty bit
   * for writes.
   * @param slot the slot a page-table entry pointed to (possibly stale)
   * @param tag make_tag of the page wanted
   * @param mode write marks the slot dirty
   * @return true when pinned: the bytes are the page's and stay so until unpin
   * @note Ordering: fetch_add(acquire) of one pin; if it read `valid` it read the value of the
   * filler's release (finish_fill/restore) or of an RMW in its release sequence, so the page
   * bytes and tag written before are visible. Then the tag is compared: it cannot change while
   * the pin is held (a claim needs pin count 0). On mismatch the pin is undone (relaxed: it
   * published nothing). Flags are set with fetch_or while pinned, so an evictor's CAS sees them.
   * Wait-free.
   */
  BAM_HD bool try_pin(std::uint32_t slot, std::uint64_t tag, access_mode mode) const noexcept {
    auto word = state(slot);
    const page_state before(word.fetch_add(1, cuda::std::memory_order_acquire));
    if (before.state() != slot_state::valid ||
        this->tag(slot).load(cuda::std::memory_order_relaxed) != tag) {
      word.fetch_sub(1, cuda::std::memory_order_relaxed);
      return false;
    }
    if (!before.referenced()) word.fetch_or(page_state::referenced_bit, cuda::std::memory_order_relaxed);
    if (mode == access_mode::write && !before.dirty()) {
      word.fetch_or(page_state::dirty_bit, cuda::std::memory_order_relaxed);
    }
    return true;
  }

  /**
   * @brief Drops `n` pins taken by try_pin or finish_fill.
   * @note Release: the holder's reads and writes of the page happen before any later claim
   * (whose CAS acquires) rewrites or writes back the slot.
   */
  BAM_HD void unpin(std::uint32_t slot, std::uint32_t n = 1) const noexcept {
    detail::add_no_result<Scope, true>(states_[slot], std::uint32_t{0} - n);  // fetch_sub, result unused
  }

  /**
   * @brief Takes a slot for exclusive use: `expected` → busy with no flags.
   * @param expected the word just loaded
   * @return true when the caller now owns the slot; `expected` then describes what it held.
   * False when `expected` is not claimable() (pinned or busy) or the word no longer equals it.
   * @note CAS, acquire on success: synchronises with every earlier unpin and fill of the slot,
   * so the owner may write back or overwrite the bytes. Fails whenever anything changed.
   */
  BAM_HD bool try_claim(std::uint32_t slot, page_state expected) const noexcept {
    if (!expected.claimable()) return false;
    std::uint32_t raw = expected.raw();
    return state(slot).compare_exchange_strong(raw, page_state::make(slot_state::busy).raw(),
                                               cuda::std::memory_order_acquire,
                                               cuda::std::memory_order_relaxed);
  }

  /**
   * @brief Clears the reference bit (the clock's second chance).
   * @note Relaxed fetch_and: a racing pin re-setting the bit is harmless either way.
   */
  BAM_HD void clear_reference(std::uint32_t slot) const noexcept {
    state(slot).fetch_and(~page_state::referenced_bit, cuda::std::memory_order_relaxed);
  }

  /**
   * @brief Owner only: publishes a filled slot as `valid` holding `tag`, already pinned `pins`
   * times for the filler, referenced, and dirty when `mode` is write.
   * @note The tag store (relaxed) and the bytes written by the backend precede the release
   * fetch_add, which try_pin's acquire pairs with.
   */
  BAM_HD void finish_fill(std::uint32_t slot, std::uint64_t tag, std::uint32_t pins,
                          access_mode mode) const noexcept {
    this->tag(slot).store(tag, cuda::std::memory_order_relaxed);
    const std::uint32_t flags =
        page_state::referenced_bit | (mode == access_mode::write ? page_state::dirty_bit : 0U);
    state(slot).fetch_add(page_state::transition(slot_state::busy, slot_state::valid) + flags + pins,
                          cuda::std::memory_order_release);
  }

  /**
   * @brief Owner only: makes a busy slot valid again with the page (and tag) it held when
   * claimed; used after a write-back, successful (flush) or not (eviction abandoned).
   * @note Release fetch_add, as finish_fill.
   */
  BAM_HD void restore(std::uint32_t slot, bool dirty, bool referenced) const noexcept {
    const std::uint32_t flags = (dirty ? page_state::dirty_bit : 0U) |
                                (referenced ? page_state::referenced_bit : 0U);
    state(slot).fetch_add(page_state::transition(slot_state::busy, slot_state::valid) + flags,
                          cuda::std::memory_order_release);
  }

  /**
   * @brief Owner only: gives a busy slot up as invalid (a failed fill: its bytes are garbage).
   * @note Release: the next claimer's acquire orders the backend's partial writes before its own.
   */
  BAM_HD void abort(std::uint32_t slot) const noexcept {
    state(slot).fetch_add(page_state::transition(slot_state::busy, slot_state::invalid),
                          cuda::std::memory_order_release);
  }

 private:
  BAM_HD cuda::atomic_ref<std::uint32_t, Scope> state(std::uint32_t slot) const noexcept {
    return cuda::atomic_ref<std::uint32_t, Scope>(states_[slot]);
  }
  BAM_HD cuda::atomic_ref<std::uint64_t, Scope> tag(std::uint32_t slot) const noexcept {
    return cuda::atomic_ref<std::uint64_t, Scope>(tags_[slot]);
  }

  std::uint32_t* states_;
  std::uint64_t* tags_;
  std::uint32_t n_slots_;
};

static_assert(std::is_trivially_copyable_v<slot_table_ref<>>);

}  // namespace bam::cache
