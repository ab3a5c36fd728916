// SPDX-License-Identifier: Apache-2.0
// bam::cache: the state every layer of the cache protocol shares (views of the owner's storage and
// the backend) and the small helpers on it: slot bytes, page transfers, deadlines, counts.
#pragma once

#include "cache/admission.hpp"
#include "cache/backend.hpp"
#include "cache/cache_storage.hpp"
#include "cache/clock_policy.hpp"
#include "cache/page_table.hpp"
#include "cache/slot_table.hpp"
#include "cache/stats.hpp"

#include <bam/config.hpp>
#include <bam/detail/clock.hpp>
#include <bam/status.hpp>

#include <cstddef>
#include <cstdint>

namespace bam::cache {

/**
 * @brief The bottom layer of cache_ref: its members, all views (trivially copyable), and the
 * helpers the fill (cache_fill), acquisition (cache_acquire) and public (cache_ref) layers share.
 */
template <page_backend Backend, cuda::thread_scope Scope = cuda::thread_scope_device>
class cache_core {
 protected:
  BAM_HD cache_core(const cache_storage<Scope>& storage, cache_options options, Backend backend) noexcept
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

  /// A leader's result, as shuffled to its peers.
  struct outcome {
    status result;
    std::uint32_t slot;
  };
  BAM_HD std::byte* slot_bytes(std::uint32_t slot) const noexcept {
    return data_ + std::size_t{slot} * page_bytes_;
  }
  BAM_HD std::uint64_t deadline() const noexcept { return detail::now_ns() + timeout_ns_; }

  /// Internal result of a staged lookup that found the page being filled or evicted by another
  /// thread: the lane asks again after its group published its own fills.
  static constexpr status retry = static_cast<status>(0xff);

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
