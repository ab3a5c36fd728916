// SPDX-License-Identifier: Apache-2.0
// Test support: run a function on several host threads that start together.
#pragma once

#include <latch>
#include <thread>
#include <vector>

namespace bam::test {

/**
 * @brief Runs `fn(id)` for id = 0..n-1, each on its own thread, released together by a latch
 * (to widen race windows), and returns once all have returned.
 */
template <class Fn>
void run_team(unsigned n, Fn fn) {
  std::latch start(n);
  std::vector<std::jthread> threads;
  threads.reserve(n);
  for (unsigned id = 0; id < n; ++id) {
    threads.emplace_back([&start, &fn, id] {
      start.arrive_and_wait();
      fn(id);
    });
  }
}

}  // namespace bam::test
