// SPDX-License-Identifier: Apache-2.0
// bam::cache: admission of lane groups that miss, so that the slots groups hold while they wait
// for more never exhaust the cache (progress at any cache size).
#pragma once

#include <bam/config.hpp>
#include <bam/detail/clock.hpp>
#include <bam/status.hpp>

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

namespace bam::cache {

/**
 * @brief A counting gate over the slots that groups may hold while they wait: a group that must
 * wait for a miss (a fill, a victim, another thread's fill) first reserves as many units as it
 * has distinct pages, and holds no pin or claimed slot beyond them while it waits.
 *
 * Deadlock freedom: admitted groups hold at most `capacity` (the number of slots) units, each
 * pinning or claiming no more slots than its units, and other groups pin only for a single pass
 * that waits for nothing. So while an admitted group still needs a slot (it holds fewer slots
 * than its units), some slot is neither pinned by a waiter nor busy, and the
 * clock claims it once the single-pass pins on it are dropped; every admitted group finishes
 * (bounded by its I/O deadlines) and returns its units. No set of groups can each hold pins while
 * waiting for the others'.
 *
 * The word: `[63:32]` units set aside for one starving group, `[31:0]` units held. A reservation
 * of k is one fetch_add of k, admitted when the units held before it, plus k, plus the set-aside
 * fit the capacity, and undone otherwise. A group refused for long sets k aside (a CAS from none)
 * so that the units other groups return accumulate for it; it then takes them, clearing the
 * set-aside, in one CAS. A group needing many units therefore cannot be starved by groups needing
 * few.
 *
 * Ordering: relaxed throughout. The gate protects no data (the slot and page-table words carry
 * the happens-before of data); it only bounds how many slots are held.
 *
 * @tparam Scope the scope of the word's atomic
 * @note The owner provides the word zeroed. Trivially copyable; pass it by value.
 */
template <cuda::thread_scope Scope = cuda::thread_scope_device>
class admission_ref {
 public:
  admission_ref() = default;
  /** @brief Views the owner's word; `capacity` units may be held at once. */
  BAM_HD admission_ref(std::uint64_t* word, std::uint32_t capacity) noexcept : word_(word), capacity_(capacity) {}

  /// Units that may be held at once.
  BAM_HD std::uint32_t capacity() const noexcept { return capacity_; }

  /**
   * @brief Reserves `k` units (1 <= k <= capacity), waiting while the cache's other waiters
   * hold too many.
   * @param stall_ns give up after this long without the word moving (nobody took or returned
   * units: longer than any admitted group can hold its units without progress), or after
   * stall_limit times as long in all
   * @return ok (the caller must leave(k) later), or timeout when the cache's slots stayed held
   * (a kernel holding pinned pages while it waits for more)
   * @note Waiting for other groups is not a timeout: the limit restarts whenever the word moves.
   * The overall bound only keeps a kernel from hanging if other waiters' retries keep the word
   * moving while the holders are stuck.
   */
  BAM_HD status enter(std::uint32_t k, std::uint64_t stall_ns) const {
    if (try_enter(k)) return status::ok;
    // Waiters poll with loads and try only when the word shows room: thousands of warps may wait.
    detail::backoff wait(256, 16384);
    std::uint64_t seen = word().load(cuda::std::memory_order_relaxed);
    const std::uint64_t start = detail::now_ns();
    std::uint64_t limit = start + stall_ns;
    unsigned refusals = 1;
    bool set_aside = false;
    for (;;) {
      wait();
      const std::uint64_t now = word().load(cuda::std::memory_order_relaxed);
      if (set_aside) {
        // The units set aside are ours: take them once the held units leave room.
        std::uint64_t w = now;
        while (held(w) + k <= capacity_) {
          if (word().compare_exchange_weak(w, w - (std::uint64_t{k} << 32) + k, cuda::std::memory_order_relaxed)) {
            return status::ok;
          }
        }
      } else if (held(now) + k + aside(now) <= capacity_ && try_enter(k)) {
        return status::ok;
      } else if (++refusals >= starving_after && aside(now) == 0) {
        std::uint64_t w = now;
        set_aside = aside(w) == 0 && word().compare_exchange_strong(w, w + (std::uint64_t{k} << 32),
                                                                       cuda::std::memory_order_relaxed);
      }
      const std::uint64_t t = detail::now_ns();
      if (now != seen) {
        seen = now;
        limit = t + stall_ns;
      }
      if (t > limit || t - start > stall_ns * stall_limit) {
        if (set_aside) word().fetch_sub(std::uint64_t{k} << 32, cuda::std::memory_order_relaxed);
        return status::timeout;
      }
    }
  }

  /**
   * @brief Reserves `k` units if they fit at once: one fetch_add, admitted when the units held
   * before, k and the set-aside fit the capacity, else undone. Never waits.
   * @return true when the caller must leave(k) later
   */
  BAM_HD bool try_enter(std::uint32_t k) const noexcept {
    const std::uint64_t before = word().fetch_add(k, cuda::std::memory_order_relaxed);
    if (std::uint64_t{held(before)} + k + aside(before) <= capacity_) return true;
    word().fetch_sub(k, cuda::std::memory_order_relaxed);
    return false;
  }

  /// Returns `k` units reserved by enter() or try_enter().
  BAM_HD void leave(std::uint32_t k) const noexcept {
    word().fetch_sub(k, cuda::std::memory_order_relaxed);
  }

  /// Units held now (a snapshot, for tests and statistics).
  BAM_HD std::uint32_t held_now() const noexcept { return held(word().load(cuda::std::memory_order_relaxed)); }

 private:
  /// Refusals after which a group sets its units aside.
  static constexpr unsigned starving_after = 64;
  /// The longest wait, in stall periods.
  static constexpr std::uint64_t stall_limit = 64;

  BAM_HD static std::uint32_t held(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w); }
  BAM_HD static std::uint32_t aside(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w >> 32); }
  BAM_HD cuda::atomic_ref<std::uint64_t, Scope> word() const noexcept {
    return cuda::atomic_ref<std::uint64_t, Scope>(*word_);
  }

  std::uint64_t* word_ = nullptr;
  std::uint32_t capacity_ = 0;
};

static_assert(std::is_trivially_copyable_v<admission_ref<>>);

}  // namespace bam::cache
