// SPDX-License-Identifier: Apache-2.0
// How the emulated controller's threads wait for work: spin with pause instructions for a
// while, then sleep, the longer the longer they have been idle, so an idle controller costs
// little CPU (and leaves the host's cores to the application between kernels) yet notices a
// doorbell within a small fraction of the time it had been idle.
#pragma once

#include <bam/detail/clock.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace bam::host {

/** @brief Tells the CPU that the caller spins (x86 PAUSE, Arm YIELD). */
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/**
 * @brief Spin-then-sleep waiting. pause() spins (a few pause instructions per call) until
 *        `spin_ns` have passed since the first idle call, then sleeps sleep_ns(idle time) per
 *        call: `min_sleep_ns`, growing with the idle time to at most `max_sleep_ns`.
 *        reset() after useful work starts the next wait from spinning again.
 * @note Invariant: work arriving after an idle period T is noticed within
 *       max(min_sleep_ns, min(T / idle_fraction, max_sleep_ns)) (plus the timer's slack), so
 *       a controller busy between short gaps keeps its microsecond response while one idle
 *       for milliseconds wakes a few thousand times a second instead of hundreds of thousands.
 */
class idle_backoff {
 public:
  static constexpr std::uint64_t idle_fraction = 16;  ///< sleeps grow as idle time / this

  idle_backoff(std::uint32_t spin_ns, std::uint32_t min_sleep_ns, std::uint32_t max_sleep_ns) noexcept
      : spin_ns_(spin_ns), min_sleep_ns_(min_sleep_ns), max_sleep_ns_(std::max(min_sleep_ns, max_sleep_ns)) {}

  /// How long a pause() sleeps after `idle_ns` of idleness (0: it spins).
  [[nodiscard]] std::uint64_t sleep_ns(std::uint64_t idle_ns) const noexcept {
    if (idle_ns < spin_ns_) return 0;
    return std::clamp<std::uint64_t>(idle_ns / idle_fraction, min_sleep_ns_, max_sleep_ns_);
  }

  void reset() noexcept { idle_since_ = 0; }
  void pause() noexcept {
    const std::uint64_t now = bam::detail::now_ns();
    if (idle_since_ == 0) idle_since_ = now;
    const std::uint64_t sleep = sleep_ns(now - idle_since_);
    if (sleep == 0) {
      for (int i = 0; i < spins_per_pause; ++i) cpu_relax();
    } else {
      std::this_thread::sleep_for(std::chrono::nanoseconds(sleep));
    }
  }

 private:
  static constexpr int spins_per_pause = 8;
  std::uint32_t spin_ns_;
  std::uint32_t min_sleep_ns_;
  std::uint32_t max_sleep_ns_;
  std::uint64_t idle_since_ = 0;
};

}  // namespace bam::host
