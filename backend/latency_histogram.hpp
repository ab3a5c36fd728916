// SPDX-License-Identifier: Apache-2.0
// bam::backend latency histogram: commands counted by submit-to-completion time, in
// power-of-two buckets of nanoseconds.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/atomic.hpp>

#include <cstdint>

namespace bam::backend {

/// Buckets of the histogram: bucket b counts latencies in [2^b, 2^(b+1)) ns, the last bucket
/// everything longer.
inline constexpr std::uint32_t latency_buckets = 40;

/// The bucket of a latency of `ns` nanoseconds.
BAM_HD constexpr std::uint32_t latency_bucket(std::uint64_t ns) {
  std::uint32_t b = 0;
  while (b + 1 < latency_buckets && (ns >> (b + 1)) != 0) ++b;
  return b;
}

/// Adds one command of `ns` nanoseconds to `histogram` (latency_buckets words).
/// @note Relaxed, device scope: the words are counts only, read back after the kernels finished.
BAM_HD inline void count_latency(std::uint64_t* histogram, std::uint64_t ns) {
  detail::atomic<std::uint64_t, cuda::thread_scope_device>(histogram[latency_bucket(ns)])
      .fetch_add(1, cuda::std::memory_order_relaxed);
}

}  // namespace bam::backend
