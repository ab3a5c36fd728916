// SPDX-License-Identifier: Apache-2.0
// bam::cache: per-range cache statistics in sharded counters.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/atomic.hpp>
#include <bam/detail/clock.hpp>

#include <cuda/atomic>
#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bam::cache {

/// What the cache counts, per range. Lane requests (accesses) are not stored: every in-range
/// request is exactly one of a hit, a miss or a coalesced request.
enum class counter : std::uint32_t {
  hits,           ///< leader lookups that found the page resident at once
  misses,         ///< leader lookups that did not (they filled it, or waited for a filler)
  coalesced,      ///< lane requests served by a peer's lookup (requests saved)
  failures,       ///< leader lookups that ended in an error status (counted among misses too)
  evictions,      ///< pages of this range dropped to make room
  write_backs,    ///< dirty pages of this range written to the backend (eviction or flush)
  bytes_read,     ///< bytes the backend read into slots for this range
  bytes_written,  ///< bytes written back to the backend from this range
};
/// Number of counters: one cache line of 64-bit words per (shard, range).
inline constexpr std::uint32_t counter_count = 8;
static_assert(counter_count * sizeof(std::uint64_t) == cache_line_bytes);

/// A snapshot of the counters of one range, or the sum over ranges.
struct cache_stats {
  std::uint64_t accesses = 0;       ///< lane requests: hits + misses + coalesced
  std::uint64_t hits = 0;           ///< see counter::hits
  std::uint64_t misses = 0;         ///< see counter::misses
  std::uint64_t coalesced = 0;      ///< see counter::coalesced
  std::uint64_t failures = 0;       ///< see counter::failures
  std::uint64_t evictions = 0;      ///< see counter::evictions
  std::uint64_t write_backs = 0;    ///< see counter::write_backs
  std::uint64_t bytes_read = 0;     ///< see counter::bytes_read
  std::uint64_t bytes_written = 0;  ///< see counter::bytes_written

  /// Field-wise sum.
  BAM_HD constexpr cache_stats& operator+=(const cache_stats& o) noexcept {
    accesses += o.accesses;
    hits += o.hits;
    misses += o.misses;
    coalesced += o.coalesced;
    failures += o.failures;
    evictions += o.evictions;
    write_backs += o.write_backs;
    bytes_read += o.bytes_read;
    bytes_written += o.bytes_written;
    return *this;
  }
};

/**
 * @brief A non-owning view of sharded counters laid out `[shard][range][counter]`.
 *
 * A thread adds to shard `detail::worker_id() % shards` (the SM on a GPU), so threads of
 * different SMs rarely touch the same line; readers sum the shards. Callers aggregate before
 * adding (a leader adds once for its peers).
 *
 * @tparam Scope the scope of the counters' atomics
 * @note The owner provides `words(n_ranges, n_shards)` zeroed words, 64-byte aligned. Counts are
 * relaxed: exact once the threads that added have been joined (kernel end, thread join).
 * Trivially copyable; pass it by value.
 */
template <cuda::thread_scope Scope = cuda::thread_scope_device>
class stats_ref {
 public:
  /// Words the owner must provide.
  BAM_HD static constexpr std::size_t words(std::uint32_t n_ranges, std::uint32_t n_shards) noexcept {
    return std::size_t{n_ranges} * n_shards * counter_count;
  }

  /**
   * @brief Views `counters` as shards of `n_ranges` ranges.
   * @param counters words(n_ranges, n_shards) zeroed words for some n_shards >= 1, or none:
   *        then add() counts nothing and every sum is zero
   * @param n_ranges ranges counted
   */
  BAM_HD stats_ref(cuda::std::span<std::uint64_t> counters, std::uint32_t n_ranges) noexcept
      : counters_(counters.data()), n_ranges_(n_ranges),
        n_shards_(static_cast<std::uint32_t>(counters.size() / words(n_ranges, 1))) {}

  /** @brief Adds `n` to counter `c` of `range` (relaxed). */
  BAM_HD void add(std::uint32_t range, counter c, std::uint64_t n) const noexcept {
    if (n_shards_ == 0) return;  // counting switched off: viewed no counters
    const std::uint32_t shard = detail::worker_id() % n_shards_;
    detail::add_no_result<Scope>(word(shard, range, c), n);
  }

  /** @brief The counters of `range`, summed over shards. */
  BAM_HD cache_stats of_range(std::uint32_t range) const noexcept {
    std::uint64_t sum[counter_count] = {};
    for (std::uint32_t shard = 0; shard < n_shards_; ++shard) {
      for (std::uint32_t c = 0; c < counter_count; ++c) {
        sum[c] += cuda::atomic_ref<std::uint64_t, Scope>(word(shard, range, static_cast<counter>(c)))
                      .load(cuda::std::memory_order_relaxed);
      }
    }
    const auto at = [&sum](counter c) { return sum[static_cast<std::uint32_t>(c)]; };
    return cache_stats{at(counter::hits) + at(counter::misses) + at(counter::coalesced),
                       at(counter::hits),
                       at(counter::misses),
                       at(counter::coalesced),
                       at(counter::failures),
                       at(counter::evictions),
                       at(counter::write_backs),
                       at(counter::bytes_read),
                       at(counter::bytes_written)};
  }

  /** @brief The counters of every range, summed (the per-cache statistics). */
  BAM_HD cache_stats total() const noexcept {
    cache_stats all;
    for (std::uint32_t range = 0; range < n_ranges_; ++range) all += of_range(range);
    return all;
  }

 private:
  BAM_HD std::uint64_t& word(std::uint32_t shard, std::uint32_t range, counter c) const noexcept {
    return counters_[(std::size_t{shard} * n_ranges_ + range) * counter_count +
                     static_cast<std::uint32_t>(c)];
  }

  std::uint64_t* counters_;
  std::uint32_t n_ranges_;
  std::uint32_t n_shards_;
};

static_assert(std::is_trivially_copyable_v<stats_ref<>>);

}  // namespace bam::cache
