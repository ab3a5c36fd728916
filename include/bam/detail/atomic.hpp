// SPDX-License-Identifier: Apache-2.0
// Short names for the scoped atomic references the portable core is written against, and a
// try-lock for words that guard short critical sections (never held across a wait).
#pragma once

#include <bam/config.hpp>

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

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

/**
 * @brief Adds `n` to `word` without asking for the old value.
 * @note On a GPU this is one reduction (`red.global`): the warp issues it and goes on. A
 * `cuda::atomic_ref::fetch_add` whose result is unused may still compile to a generic atomic
 * that waits for the old value (and checks whether the address is in shared memory), a round
 * trip to L2 on every call; on the hit path that wait was the largest cost of counting.
 * `word` must be in global memory (device or mapped host memory), never shared or local.
 * Ordering: relaxed, or release when `release` is true (earlier accesses of the thread happen
 * before the add, for an acquirer that reads its effect). On the host, atomic_ref's fetch_add.
 */
template <cuda::thread_scope Scope, bool release = false, class T>
BAM_HD inline void add_no_result(T& word, T n) {
  static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>);
#if defined(__CUDA_ARCH__)
  const auto global = __cvta_generic_to_global(&word);
#define BAM_RED(sem, scope, type, reg) \
  asm volatile("red." sem "." scope ".global.add." type " [%0], %1;" ::"l"(global), reg(n) : "memory")
#define BAM_RED_SCOPED(sem, type, reg)                                                   \
  if constexpr (Scope == cuda::thread_scope_system) BAM_RED(sem, "sys", type, reg);     \
  else if constexpr (Scope == cuda::thread_scope_device) BAM_RED(sem, "gpu", type, reg); \
  else BAM_RED(sem, "cta", type, reg)
  if constexpr (std::is_same_v<T, std::uint64_t>) {
    if constexpr (release) BAM_RED_SCOPED("release", "u64", "l");
    else BAM_RED_SCOPED("relaxed", "u64", "l");
  } else {
    if constexpr (release) BAM_RED_SCOPED("release", "u32", "r");
    else BAM_RED_SCOPED("relaxed", "u32", "r");
  }
#undef BAM_RED_SCOPED
#undef BAM_RED
#else
  atomic<T, Scope>(word).fetch_add(n, release ? cuda::std::memory_order_release : cuda::std::memory_order_relaxed);
#endif
}

}  // namespace bam::detail
