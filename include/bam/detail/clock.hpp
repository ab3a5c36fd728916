// SPDX-License-Identifier: Apache-2.0
// bam: time, back-off and worker identity, one body each for host and device (NV_IF_ELSE_TARGET).
#pragma once

#include <bam/config.hpp>

#include <nv/target>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace bam::detail {

/// Nanoseconds from a monotonic clock: %globaltimer on the device, steady_clock on the host.
/// Only differences are meaningful, and only between readings on the same side.
BAM_HD inline std::uint64_t now_ns() {
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE,
      (std::uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;),
      (return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::steady_clock::now().time_since_epoch())
                                             .count());))
}

/// Gives up the processor for about `ns` nanoseconds while spinning on a condition:
/// __nanosleep on the device, a yield on the host (host threads stand in for warps in tests,
/// and a yield lets the thread being waited for run on a machine with few cores).
BAM_HD inline void pause(unsigned ns) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (__nanosleep(ns);), ((void)ns; std::this_thread::yield();))
}

/// Exponential back-off for spin loops: starts at `min_ns`, doubles up to `max_ns`.
class backoff {
 public:
  BAM_HD explicit backoff(unsigned min_ns = 32, unsigned max_ns = 4096)
      : ns_(min_ns), max_ns_(max_ns) {}
  BAM_HD void operator()() {
    pause(ns_);
    ns_ = ns_ * 2 > max_ns_ ? max_ns_ : ns_ * 2;
  }

 private:
  unsigned ns_;
  unsigned max_ns_;
};

/// A small integer naming the processor running the caller, used to spread work over queues:
/// the SM id on the device; on the host, a per-thread id assigned at first use.
BAM_HD inline unsigned worker_id() {
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE, (unsigned id; asm volatile("mov.u32 %0, %%smid;" : "=r"(id)); return id;),
      (static std::atomic<unsigned> next{0}; thread_local unsigned id = next.fetch_add(1);
       return id;))
}

}  // namespace bam::detail
