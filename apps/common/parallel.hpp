// SPDX-License-Identifier: Apache-2.0
// A dynamic parallel loop over std::thread that carries the first exception back to the caller.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bam::apps {

/** @brief Threads to use when the caller does not say: the hardware concurrency, at least 1. */
inline unsigned default_thread_count() { return std::max(1u, std::thread::hardware_concurrency()); }

/**
 * @brief Calls fn(item, thread_index) once for every item in [0, n_items), on up to n_threads
 *        threads that take items in increasing order as they become free.
 * @param n_threads 0 means default_thread_count(). thread_index is in [0, n_threads), so callers
 *        can keep per-thread scratch in a vector indexed by it.
 * @throw The first exception any call threw; items not yet started are then skipped.
 * @note Items run concurrently and in no fixed order: fn must only share state through atomics
 *       or disjoint writes. With one thread (or one item) everything runs on the caller's thread.
 */
template <class Fn>
void parallel_for(std::uint64_t n_items, unsigned n_threads, Fn&& fn) {
  if (n_threads == 0) n_threads = default_thread_count();
  n_threads = static_cast<unsigned>(std::min<std::uint64_t>(n_threads, n_items));
  if (n_threads <= 1) {
    for (std::uint64_t i = 0; i < n_items; ++i) fn(i, 0u);
    return;
  }
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto worker = [&](unsigned thread_index) {
    try {
      for (std::uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
           i < n_items && !failed.load(std::memory_order_relaxed);
           i = next.fetch_add(1, std::memory_order_relaxed)) {
        fn(i, thread_index);
      }
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  };
  std::vector<std::jthread> threads;
  threads.reserve(n_threads - 1);
  for (unsigned t = 1; t < n_threads; ++t) threads.emplace_back(worker, t);
  worker(0);
  threads.clear();  // joins
  if (first_error) std::rethrow_exception(first_error);
}

/**
 * @brief parallel_for over [0, n) cut into ranges of `grain` items: fn(begin, end, thread_index).
 */
template <class Fn>
void parallel_for_ranges(std::uint64_t n, std::uint64_t grain, unsigned n_threads, Fn&& fn) {
  const std::uint64_t n_ranges = (n + grain - 1) / grain;
  parallel_for(n_ranges, n_threads, [&](std::uint64_t r, unsigned t) {
    fn(r * grain, std::min(n, (r + 1) * grain), t);
  });
}

}  // namespace bam::apps
