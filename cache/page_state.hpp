// SPDX-License-Identifier: Apache-2.0
// bam::cache: the packed 32-bit state word of one cache slot (lifecycle, flags, pin count).
#pragma once

#include <bam/config.hpp>

#include <cstdint>

namespace bam::cache {

/// Where a slot is in its lifecycle. Zeroed memory reads as `invalid` with no pins.
enum class slot_state : std::uint32_t {
  invalid = 0,  ///< holds no page; free to claim
  busy = 1,     ///< claimed by exactly one thread that writes the old page back and/or fills it
  valid = 2,    ///< holds the page named by the slot's tag; readable by whoever pins it
};

/**
 * @brief The state word of one slot, as a value: `[31:30]` state, `[29]` referenced (clock
 * second-chance bit), `[28]` dirty, `[27:0]` pin count.
 *
 * Every field lives in one word so that a single compare-and-swap decides eviction ("valid, not
 * pinned, not referenced" → busy) and a single fetch_add pins. The state occupies the top bits
 * so that a lifecycle change is an atomic addition of `transition(from, to)`, which keeps the pin
 * count intact while stale pinners increment and undo concurrently.
 *
 * @note At most `max_pins` pins (including short-lived ones that are undone) may coexist on one
 * slot: far above the number of threads a GPU keeps resident.
 */
class page_state {
 public:
  static constexpr unsigned pin_bits = 28;                              ///< width of the pin count
  static constexpr std::uint32_t max_pins = (1U << pin_bits) - 1;       ///< largest pin count
  static constexpr std::uint32_t pin_mask = max_pins;                   ///< bits of the pin count
  static constexpr std::uint32_t dirty_bit = 1U << pin_bits;            ///< page differs from storage
  static constexpr std::uint32_t referenced_bit = 1U << (pin_bits + 1); ///< used since the hand passed
  static constexpr unsigned state_shift = pin_bits + 2;                 ///< position of the state
  static constexpr std::uint32_t state_mask = 3U << state_shift;        ///< bits of the state

  /** @brief Wraps a raw word read from a slot's state array. */
  BAM_HD constexpr explicit page_state(std::uint32_t raw = 0) noexcept : raw_(raw) {}

  /**
   * @brief Builds a word from its fields.
   * @param s lifecycle state
   * @param pins pin count, at most max_pins
   * @param dirty the slot's bytes differ from the backend's copy
   * @param referenced the clock hand must give this slot a second chance
   * @return the packed word
   */
  BAM_HD static constexpr page_state make(slot_state s, std::uint32_t pins = 0, bool dirty = false,
                                          bool referenced = false) noexcept {
    return page_state((static_cast<std::uint32_t>(s) << state_shift) | (dirty ? dirty_bit : 0U) |
                      (referenced ? referenced_bit : 0U) | (pins & pin_mask));
  }

  /**
   * @brief The value to add atomically to a state word to move it from `from` to `to`, leaving
   * flags and pins alone (modular arithmetic: the state is the top field, nothing carries out).
   */
  BAM_HD static constexpr std::uint32_t transition(slot_state from, slot_state to) noexcept {
    return (static_cast<std::uint32_t>(to) << state_shift) -
           (static_cast<std::uint32_t>(from) << state_shift);
  }

  BAM_HD constexpr std::uint32_t raw() const noexcept { return raw_; }  ///< the packed word
  BAM_HD constexpr slot_state state() const noexcept {                  ///< lifecycle state
    return static_cast<slot_state>(raw_ >> state_shift);
  }
  BAM_HD constexpr std::uint32_t pins() const noexcept { return raw_ & pin_mask; }  ///< pin count
  BAM_HD constexpr bool dirty() const noexcept { return (raw_ & dirty_bit) != 0; }  ///< dirty flag
  BAM_HD constexpr bool referenced() const noexcept {                                ///< ref flag
    return (raw_ & referenced_bit) != 0;
  }
  /// True when the slot is neither pinned nor busy, so the clock may claim it (if valid, only once
  /// its reference bit is clear).
  BAM_HD constexpr bool claimable() const noexcept {
    return pins() == 0 && state() != slot_state::busy;
  }

  BAM_HD friend constexpr bool operator==(page_state a, page_state b) noexcept {
    return a.raw_ == b.raw_;
  }

 private:
  std::uint32_t raw_;
};

static_assert(sizeof(page_state) == sizeof(std::uint32_t));
static_assert(page_state{}.state() == slot_state::invalid && page_state{}.pins() == 0,
              "zeroed memory must read as an invalid, unpinned slot");
static_assert((page_state::pin_mask & page_state::dirty_bit) == 0 &&
              (page_state::pin_mask & page_state::referenced_bit) == 0 &&
              (page_state::state_mask & (page_state::pin_mask | page_state::dirty_bit |
                                         page_state::referenced_bit)) == 0,
              "fields must not overlap");
static_assert((page_state::state_mask | page_state::pin_mask | page_state::dirty_bit |
               page_state::referenced_bit) == 0xFFFF'FFFFU,
              "fields must cover the word");
static_assert(page_state(page_state::make(slot_state::busy, 7, false, false).raw() +
                         page_state::transition(slot_state::busy, slot_state::valid)) ==
                  page_state::make(slot_state::valid, 7, false, false),
              "a transition keeps the pin count");
static_assert(page_state(page_state::make(slot_state::busy, 3).raw() +
                         page_state::transition(slot_state::busy, slot_state::invalid)) ==
                  page_state::make(slot_state::invalid, 3),
              "a backward transition wraps modulo 2^32 into the state field only");

}  // namespace bam::cache
