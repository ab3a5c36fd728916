// SPDX-License-Identifier: Apache-2.0
// bam::cache: what a cache_ref is built from: its run-time parameters and the memory its owner
// provides.
#pragma once

#include "cache/page_table.hpp"

#include <bam/config.hpp>

#include <cuda/atomic>
#include <cuda/std/span>

#include <cstddef>
#include <cstdint>

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

}  // namespace bam::cache
