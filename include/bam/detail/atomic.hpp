// SPDX-License-Identifier: Apache-2.0
// Short names for the scoped atomic references the portable core is written against, and a
// try-lock for words that guard short critical sections (never held across a wait).
#pragma once

#include <bam/config.hpp>

#include <cuda/atomic>

#include <cstdint>

namespace bam::detail {

template <class T, cuda::thread_scope Scope>
using atomic = cuda::atomic_ref<T, Scope>;

/// Words touched by the GPU and by a host or a controller across PCIe.
template <class T>
using system_atomic = cuda::atomic_ref<T, cuda::thread_scope_system>;

/// Acquires the lock word if it is free. Acquire ordering on success.
template <cuda::thread_scope Scope>
BAM_HD inline bool try_lock(std::uint32_t& word) {
  atomic<std::uint32_t, Scope> a(word);
  return a.load(cuda::std::memory_order_relaxed) == 0 &&
         a.exchange(1, cuda::std::memory_order_acquire) == 0;
}

/// Releases a lock taken with try_lock. Release ordering.
template <cuda::thread_scope Scope>
BAM_HD inline void unlock(std::uint32_t& word) {
  atomic<std::uint32_t, Scope>(word).store(0, cuda::std::memory_order_release);
}

}  // namespace bam::detail
