// SPDX-License-Identifier: Apache-2.0
// Atomic read-modify-write helpers over plain integers (std::atomic_ref), the shape a GPU kernel
// mirrors with cuda::atomic_ref.
#pragma once

#include <atomic>

namespace bam::graph {

/**
 * @brief Atomically sets obj = min(obj, value).
 * @return The value obj held before, so `atomic_fetch_min(d, x) > x` means this call lowered it.
 * @note Relaxed ordering: callers only need the per-word total order, and publish results by
 *       joining threads (or by a kernel boundary on a GPU).
 */
template <class T>
T atomic_fetch_min(T& obj, T value) {
  std::atomic_ref<T> ref(obj);
  T seen = ref.load(std::memory_order_relaxed);
  while (value < seen && !ref.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
  return seen;
}

}  // namespace bam::graph
