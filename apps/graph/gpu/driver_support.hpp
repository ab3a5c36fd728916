// SPDX-License-Identifier: Apache-2.0
// What the host loops of the runners share: timing each step and reporting it to the caller's
// on_iteration hook, and the checks every runner makes on its arguments.
#pragma once

#include "apps/graph/error.hpp"
#include "apps/graph/gpu/runners.hpp"
#include "apps/graph/gpu/step_support.hpp"

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace bam::graph::gpu {

/**
 * @brief frontier.hpp's check_source, out of line: nvcc cannot compile fmt's compile-time
 * format strings, so the .cu files must not include frontier.hpp.
 * @throw graph_error "<algorithm> source S is not one of the N vertices" when source >= n
 */
void check_run_source(std::string_view algorithm, std::uint64_t source, std::uint64_t n);

/// Element type of an executor's buffer.
template <class Buffer>
using element_of = std::remove_pointer_t<decltype(std::declval<Buffer&>().data())>;

/// Buffer access from the host loops, for both executors' buffers (upload/download).
template <class Buffer>
void put(Buffer& b, std::uint64_t i, element_of<Buffer> value) {
  b.upload(std::span<const element_of<Buffer>>(&value, 1), i);
}
template <class Buffer>
[[nodiscard]] element_of<Buffer> fetch_at(const Buffer& b, std::uint64_t i) {
  element_of<Buffer> value;
  b.download(std::span<element_of<Buffer>>(&value, 1), i);
  return value;
}
template <class Buffer>
[[nodiscard]] std::vector<element_of<Buffer>> to_vector(const Buffer& b) {
  std::vector<element_of<Buffer>> v(b.size());
  b.download(std::span<element_of<Buffer>>(v));
  return v;
}

/// Times a run and each of its steps; hands every step to the options' hook.
class step_log {
 public:
  explicit step_log(const run_options& o) : hook_(o.on_iteration) {}

  /// Ends the current step: reports it (the executor has synchronised) and starts the next.
  void step(const std::string& phase, std::uint64_t frontier, const step_totals& t) {
    const auto now = clock::now();
    edges_ += t.edges;
    if (hook_) {
      const iteration_info info{iteration_, phase, frontier, t.edges,
                                std::chrono::duration<double>(now - last_).count()};
      hook_(info);
    }
    ++iteration_;
    // The hook's own time (sampling statistics, printing) is not the run's.
    const auto after = clock::now();
    paused_ += after - now;
    last_ = after;
  }
  /// Seconds since construction, without the time spent in the hook.
  [[nodiscard]] double seconds() const {
    return std::chrono::duration<double>(clock::now() - start_ - paused_).count();
  }
  [[nodiscard]] std::uint64_t edges() const { return edges_; }
  [[nodiscard]] std::uint32_t steps() const { return iteration_; }

 private:
  using clock = std::chrono::steady_clock;
  const std::function<void(const iteration_info&)>& hook_;
  clock::time_point start_ = clock::now();
  clock::time_point last_ = start_;
  clock::duration paused_{};
  std::uint64_t edges_ = 0;
  std::uint32_t iteration_ = 0;
};

}  // namespace bam::graph::gpu
