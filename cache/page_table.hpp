// SPDX-License-Identifier: Apache-2.0
// bam::cache: the page table of one mapped range (page index -> slot), one word per page.
#pragma once

#include <bam/config.hpp>

#include <cuda/atomic>
#include <cuda/std/span>

#include <cstdint>
#include <type_traits>

namespace bam::cache {

/**
 * @brief One page-table entry, as a value: empty, being filled, or the slot holding the page.
 *
 * Encoding: 0 = empty (so zeroed memory is an empty table), 1 = a filler has claimed the page,
 * `slot + 2` = resident in `slot`.
 */
class page_entry {
 public:
  static constexpr std::uint32_t empty_raw = 0;    ///< no slot, no filler
  static constexpr std::uint32_t filling_raw = 1;  ///< one thread is filling the page
  static constexpr std::uint32_t slot_base = 2;    ///< raw value of slot 0
  /// Slots a page table can name.
  static constexpr std::uint32_t max_slots = ~std::uint32_t{0} - slot_base + 1;

  /** @brief Wraps a raw word read from the table. */
  BAM_HD constexpr explicit page_entry(std::uint32_t raw = empty_raw) noexcept : raw_(raw) {}
  /** @brief The entry naming `slot`, which must be below max_slots. */
  BAM_HD static constexpr page_entry of_slot(std::uint32_t slot) noexcept {
    return page_entry(slot + slot_base);
  }

  BAM_HD constexpr std::uint32_t raw() const noexcept { return raw_; }  ///< encoded word
  BAM_HD constexpr bool empty() const noexcept { return raw_ == empty_raw; }  ///< not resident
  BAM_HD constexpr bool filling() const noexcept { return raw_ == filling_raw; }  ///< claimed
  BAM_HD constexpr bool resident() const noexcept { return raw_ >= slot_base; }  ///< has a slot
  /// The slot; meaningful only when resident().
  BAM_HD constexpr std::uint32_t slot() const noexcept { return raw_ - slot_base; }

 private:
  std::uint32_t raw_;
};

static_assert(page_entry{}.empty() && page_entry::of_slot(0).resident() &&
              page_entry::of_slot(0).slot() == 0 && page_entry::of_slot(page_entry::max_slots - 1).slot() ==
                                                        page_entry::max_slots - 1);

/**
 * @brief A non-owning view of one range's page table.
 *
 * Invariants:
 * - An entry leaves `empty` only through try_claim, so at most one thread fills a page at a
 *   time, and a page is resident in at most one slot.
 * - An entry names a slot from the moment the slot was filled with that page until the evictor
 *   that claimed the slot has written the page back; only then is it cleared. A thread that
 *   finds it empty and fills the page therefore reads what the write-back stored.
 * - An entry may be stale by the time a reader uses it; readers validate with
 *   slot_table_ref::try_pin (state and tag), never by trusting the entry.
 *
 * @tparam Scope the scope of every atomic
 * @note The owner provides the entries zeroed. Trivially copyable; pass it by value.
 */
template <cuda::thread_scope Scope = cuda::thread_scope_device>
class page_table_ref {
 public:
  page_table_ref() = default;
  /** @brief Views `entries`: one word per page of the range, zeroed initially. */
  BAM_HD explicit page_table_ref(cuda::std::span<std::uint32_t> entries) noexcept
      : entries_(entries.data()), n_pages_(entries.size()) {}

  /// Pages in the range.
  BAM_HD std::uint64_t size() const noexcept { return n_pages_; }

  /**
   * @brief The entry of `page`.
   * @note Relaxed: a slot found here is validated by try_pin, whose acquire supplies the
   * ordering; an empty entry is acted on only through try_claim, which acquires.
   */
  BAM_HD page_entry load(std::uint64_t page) const noexcept {
    return page_entry(entry(page).load(cuda::std::memory_order_relaxed));
  }

  /**
   * @brief Claims an empty entry for filling: empty → filling.
   * @return true when the caller must now fill the page and then publish() or clear() it
   * @note CAS, acquire on success: pairs with the release in clear() of the evictor that wrote
   * the page back, so the fill reads the written-back bytes from the backend.
   */
  BAM_HD bool try_claim(std::uint64_t page) const noexcept {
    std::uint32_t expected = page_entry::empty_raw;
    return entry(page).compare_exchange_strong(expected, page_entry::filling_raw,
                                               cuda::std::memory_order_acquire,
                                               cuda::std::memory_order_relaxed);
  }

  /**
   * @brief The filler makes the page resident in `slot` (filling → slot).
   * @note Release store, after finish_fill made the slot valid: a reader that sees the entry and
   * pins finds the slot valid (it may also find it in any later state, and then retries).
   */
  BAM_HD void publish(std::uint64_t page, std::uint32_t slot) const noexcept {
    entry(page).store(page_entry::of_slot(slot).raw(), cuda::std::memory_order_release);
  }

  /**
   * @brief Makes the page non-resident: by a filler that gives up its claim, or by the evictor
   * of the page's slot once the page is written back.
   * @note Release: the write-back (or abandoned fill) happens before the next claimer's fill.
   */
  BAM_HD void clear(std::uint64_t page) const noexcept {
    entry(page).store(page_entry::empty_raw, cuda::std::memory_order_release);
  }

 private:
  BAM_HD cuda::atomic_ref<std::uint32_t, Scope> entry(std::uint64_t page) const noexcept {
    return cuda::atomic_ref<std::uint32_t, Scope>(entries_[page]);
  }

  std::uint32_t* entries_ = nullptr;
  std::uint64_t n_pages_ = 0;
};

static_assert(std::is_trivially_copyable_v<page_table_ref<>>);

}  // namespace bam::cache
