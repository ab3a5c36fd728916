// SPDX-License-Identifier: Apache-2.0
// How the emulated controller's threads wait for work: spin with pause instructions for a
// while, then sleep briefly, so an idle controller costs little CPU yet notices a doorbell
// within a few microseconds.
#pragma once

#include <bam/detail/clock.hpp>

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
 * @brief Spin-then-sleep waiting: pause() spins (a few pause instructions per call) until
 *        `spin_ns` have passed since the first idle call, then sleeps `sleep_ns` per call.
 *        reset() after useful work starts the next wait from spinning again.
 */
class idle_backoff {
 public:
  idle_backoff(std::uint32_t spin_ns, std::uint32_t sleep_ns) noexcept
      : spin_ns_(spin_ns), sleep_ns_(sleep_ns) {}

  void reset() noexcept { idle_since_ = 0; }
  void pause() noexcept {
    const std::uint64_t now = bam::detail::now_ns();
    if (idle_since_ == 0) idle_since_ = now;
    if (now - idle_since_ < spin_ns_) {
      for (int i = 0; i < spins_per_pause; ++i) cpu_relax();
    } else {
      std::this_thread::sleep_for(std::chrono::nanoseconds(sleep_ns_));
    }
  }

 private:
  static constexpr int spins_per_pause = 8;
  std::uint32_t spin_ns_;
  std::uint32_t sleep_ns_;
  std::uint64_t idle_since_ = 0;
};

}  // namespace bam::host
