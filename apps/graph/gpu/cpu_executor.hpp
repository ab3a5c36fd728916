// SPDX-License-Identifier: Apache-2.0
// Runs the graph steps on std::threads: every thread is a group of one lane (single_lane), so
// the steps' warp-cooperative scans degrade to sequential scans, with the same code the GPU runs.
#pragma once

#include "apps/graph/gpu/step_support.hpp"
#include "apps/common/parallel.hpp"

#include <bam/lane_group.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace bam::graph::gpu {

/// Step memory on the host, with the interface of the GPU executor's VRAM buffer
/// (host::cuda_buffer): data(), size(), upload(), download().
template <class T>
class host_buffer {
 public:
  explicit host_buffer(std::uint64_t n) : v_(n) {}
  [[nodiscard]] T* data() { return v_.data(); }
  [[nodiscard]] std::size_t size() const { return v_.size(); }
  void upload(std::span<const T> src, std::size_t at = 0) { std::copy(src.begin(), src.end(), v_.begin() + at); }
  void download(std::span<T> dst, std::size_t at = 0) const {
    std::copy_n(v_.begin() + at, dst.size(), dst.begin());
  }

 private:
  std::vector<T> v_;
};

class cpu_executor {
 public:
  template <class T>
  using buffer = host_buffer<T>;

  explicit cpu_executor(unsigned threads) : threads_(threads == 0 ? apps::default_thread_count() : threads) {}

  template <class T>
  [[nodiscard]] buffer<T> make(std::uint64_t n) const {
    return buffer<T>(n);
  }

  /// Calls step(group, item) for every item in [0, n); returns the summed totals. `pins` (pages a
  /// group may hold at once) does not matter here: threads are few.
  template <class Step>
  step_totals for_groups(std::uint64_t n, unsigned pins, const Step& step) const {
    (void)pins;
    return run(n, [&](std::uint64_t i) {
      single_lane g;
      return step(g, i);
    });
  }
  /// Calls step(item) for every item in [0, n); returns the summed totals.
  template <class Step>
  step_totals for_lanes(std::uint64_t n, unsigned pins, const Step& step) const {
    (void)pins;
    return run(n, step);
  }
  /// Reads one word the steps can read (host memory here).
  template <class T>
  [[nodiscard]] T fetch(const T* p) const {
    return *p;
  }
  /// Nothing runs asynchronously on the host.
  void synchronize() const {}

 private:
  template <class Fn>
  step_totals run(std::uint64_t n, const Fn& fn) const {
    std::vector<step_totals> per_thread(threads_);
    constexpr std::uint64_t grain = 256;
    apps::parallel_for_ranges(n, grain, threads_, [&](std::uint64_t a, std::uint64_t z, unsigned t) {
      step_totals mine;
      for (std::uint64_t i = a; i < z; ++i) mine += fn(i);
      per_thread[t] += mine;
    });
    step_totals all;
    for (const auto& t : per_thread) all += t;
    return all;
  }

  unsigned threads_;
};

}  // namespace bam::graph::gpu
