// SPDX-License-Identifier: Apache-2.0
// bam::cache: clock (second-chance) victim selection over a slot table, without a lock.
#pragma once

#include "cache/page_state.hpp"
#include "cache/slot_table.hpp"

#include <bam/config.hpp>
#include <bam/status.hpp>

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

namespace bam::cache {

/// A slot the clock claimed, or why it found none.
struct victim {
  status result = status::no_slot;  ///< ok, or no_slot when the sweep found nothing to claim
  std::uint32_t slot = 0;           ///< the claimed (now busy) slot, when ok
  page_state prior{};               ///< what the slot held when claimed: invalid, or a valid page
};

/**
 * @brief The clock hand shared by every thread of a cache.
 *
 * The hand is a 64-bit counter; each step takes the next slot with a relaxed fetch_add, so
 * concurrent evictors visit distinct slots and never wait for one another. At each slot:
 * pinned or busy → skip; valid and referenced → clear the bit (second chance) and move on;
 * otherwise (invalid, or valid and unreferenced) → try_claim it with one CAS.
 *
 * @tparam Scope the scope of the hand's atomic
 * @note The owner provides the hand as one zeroed word. Trivially copyable; pass it by value.
 */
template <cuda::thread_scope Scope = cuda::thread_scope_device>
class clock_policy_ref {
 public:
  /** @brief Views the owner's hand word. */
  BAM_HD explicit clock_policy_ref(std::uint64_t* hand) noexcept : hand_(hand) {}

  /// Steps one sweep takes by default: a full turn to clear reference bits, a second to claim.
  BAM_HD static constexpr std::uint32_t default_steps(std::uint32_t n_slots) noexcept {
    return 2 * n_slots;
  }

  /**
   * @brief Advances the hand until it claims a slot, for at most `max_steps` slots.
   * @param slots the table to sweep
   * @param max_steps bound on the slots visited by this call
   * @return ok with the claimed slot (now busy, owned by the caller) and its prior word, or
   * no_slot when every slot visited was pinned, busy or lost to a racing claimer
   * @note Never claims a pinned or busy slot: the claim is try_claim's CAS from an unpinned,
   * non-busy word. Lock-free; bounded by max_steps.
   */
  BAM_HD victim find_victim(const slot_table_ref<Scope>& slots, std::uint32_t max_steps) const noexcept {
    const std::uint32_t n = slots.size();
    for (std::uint32_t step = 0; step < max_steps; ++step) {
      const auto slot = static_cast<std::uint32_t>(
          cuda::atomic_ref<std::uint64_t, Scope>(*hand_).fetch_add(1, cuda::std::memory_order_relaxed) % n);
      const page_state seen = slots.load(slot);
      if (!seen.claimable()) continue;
      if (seen.state() == slot_state::valid && seen.referenced()) {
        slots.clear_reference(slot);
        continue;
      }
      if (slots.try_claim(slot, seen)) return victim{status::ok, slot, seen};
    }
    return victim{};
  }

 private:
  std::uint64_t* hand_;
};

static_assert(std::is_trivially_copyable_v<clock_policy_ref<>>);

}  // namespace bam::cache
