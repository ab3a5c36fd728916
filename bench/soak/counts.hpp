// SPDX-License-Identifier: Apache-2.0
// bench/soak: what the lanes of one phase did, counted per lane and merged with atomics into
// one record (device memory on the GPU, the heap on the CPU). Written once for both.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/atomic.hpp>
#include <bam/status.hpp>

#include <cstdint>

namespace bam::bench::soak {

/// Statuses a failed access can end with (bam::status values below this).
inline constexpr unsigned status_count = 8;

/// Which check a wrong value failed.
enum class wrong_kind : std::uint32_t {
  none,
  read,          ///< a read returned something else than the model's value
  before_store,  ///< the value a store overwrote was not the model's
  add_old,       ///< fetch_add returned an old value that is not its counter's
};

/**
 * @brief Outcomes of a phase. Every access that reached the cache ends in exactly one of
 * reads / stores / adds (succeeded, value checked) or failed[status].
 */
struct phase_counts {
  unsigned long long reads = 0;      ///< reads that succeeded; each compared with the model
  unsigned long long stores = 0;     ///< stores that succeeded (old value compared, model updated)
  unsigned long long adds = 0;       ///< fetch_adds that succeeded (old value checked)
  unsigned long long wrong = 0;      ///< values that differed from the model (any wrong_kind)
  unsigned long long skipped = 0;    ///< store draws whose element another lane stored this phase
  unsigned long long failed[status_count] = {};  ///< failed accesses by bam::status
  // The first wrong value, for the report (claimed by the first lane that saw one).
  unsigned int first_wrong_claimed = 0;
  unsigned int first_wrong_kind = 0;  ///< wrong_kind
  unsigned long long first_wrong_index = 0;
  unsigned long long first_wrong_expected = 0;
  unsigned long long first_wrong_got = 0;

  /// Accesses that failed, whatever the status.
  [[nodiscard]] BAM_HD unsigned long long failures() const {
    unsigned long long n = 0;
    for (unsigned s = 0; s < status_count; ++s) n += failed[s];
    return n;
  }
  /// Accesses whose outcome was checked against the model.
  [[nodiscard]] BAM_HD unsigned long long verified() const { return reads + stores + adds; }
};

/// One lane's counts, kept in registers and merged once at the end of its work.
struct lane_counts {
  unsigned long long reads = 0, stores = 0, adds = 0, wrong = 0, skipped = 0;
  unsigned long long failed[status_count] = {};

  BAM_HD void fail(status st) { ++failed[unsigned(st) < status_count ? unsigned(st) : 0]; }
};

/**
 * @brief Adds a lane's counts to the phase's record.
 * @note Relaxed device-scope atomics; the host reads the record after the kernel (or the
 * threads) ended, which orders them.
 */
BAM_HD inline void merge(const lane_counts& c, phase_counts& into) {
  using counter = detail::atomic<unsigned long long, cuda::thread_scope_device>;
  constexpr auto relaxed = cuda::std::memory_order_relaxed;
  auto add = [&](unsigned long long& word, unsigned long long v) {
    if (v != 0) counter(word).fetch_add(v, relaxed);
  };
  add(into.reads, c.reads);
  add(into.stores, c.stores);
  add(into.adds, c.adds);
  add(into.wrong, c.wrong);
  add(into.skipped, c.skipped);
  for (unsigned s = 0; s < status_count; ++s) add(into.failed[s], c.failed[s]);
}

/// Records the first wrong value of the phase (later ones are only counted).
BAM_HD inline void note_wrong(phase_counts& into, wrong_kind kind, std::uint64_t index, std::uint64_t expected,
                              std::uint64_t got) {
  unsigned int free = 0;
  if (!detail::atomic<unsigned int, cuda::thread_scope_device>(into.first_wrong_claimed)
           .compare_exchange_strong(free, 1u, cuda::std::memory_order_relaxed)) {
    return;
  }
  into.first_wrong_kind = unsigned(kind);
  into.first_wrong_index = index;
  into.first_wrong_expected = expected;
  into.first_wrong_got = got;
}

}  // namespace bam::bench::soak
