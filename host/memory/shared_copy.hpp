// SPDX-License-Identifier: Apache-2.0
// Copies into and out of memory that other threads may read or write at the same time (a
// store's blocks). NVMe gives overlapping commands no atomicity, and a real controller's DMA
// engine sits outside the C++ memory model; the emulated one copies with memcpy (the hot path:
// ~2x faster than word-by-word atomics for 4 KiB blocks). Under ThreadSanitizer it copies one
// relaxed atomic word at a time instead, so the race detector sees the overlap NVMe allows as
// defined behaviour and still reports every other race.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define BAM_SHARED_COPY_ATOMIC 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BAM_SHARED_COPY_ATOMIC 1
#endif
#endif
#ifndef BAM_SHARED_COPY_ATOMIC
#define BAM_SHARED_COPY_ATOMIC 0
#endif

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bam::host::detail {

/// Calls `copy_words<Word>` with the widest word (8, 4 or 1 bytes) that divides both
/// addresses and the length.
template <class Fn>
inline void dispatch_word_size(const void* a, const void* b, std::size_t bytes, Fn&& fn) {
  const auto bits = reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) |
                    std::uintptr_t(bytes);
  if ((bits & 7) == 0) {
    fn(std::uint64_t{});
  } else if ((bits & 3) == 0) {
    fn(std::uint32_t{});
  } else {
    fn(std::uint8_t{});
  }
}

/**
 * @brief Copies `bytes` from shared memory `src` (only read; non-const because atomic_ref
 *        needs a mutable object) to private memory `dst`.
 * @note Relaxed atomic loads of `src` under TSan, memcpy otherwise: no ordering with other threads is implied; callers
 *       order the transfer as a whole (e.g. the completion's release store).
 */
inline void copy_from_shared(std::byte* dst, std::byte* src, std::size_t bytes) {
  if constexpr (!BAM_SHARED_COPY_ATOMIC) {
    std::memcpy(dst, src, bytes);
    return;
  }
  dispatch_word_size(dst, src, bytes, [&](auto word) {
    using word_t = decltype(word);
    for (std::size_t i = 0; i < bytes; i += sizeof(word_t)) {
      const word_t v = std::atomic_ref<word_t>(*reinterpret_cast<word_t*>(src + i))
                           .load(std::memory_order_relaxed);
      std::memcpy(dst + i, &v, sizeof(word_t));
    }
  });
}

/**
 * @brief Copies `bytes` from private memory `src` to shared memory `dst`.
 * @note Relaxed atomic stores to `dst` under TSan, memcpy otherwise; callers publish the transfer as a whole.
 */
inline void copy_to_shared(std::byte* dst, const std::byte* src, std::size_t bytes) {
  if constexpr (!BAM_SHARED_COPY_ATOMIC) {
    std::memcpy(dst, src, bytes);
    return;
  }
  dispatch_word_size(dst, src, bytes, [&](auto word) {
    using word_t = decltype(word);
    for (std::size_t i = 0; i < bytes; i += sizeof(word_t)) {
      word_t v;
      std::memcpy(&v, src + i, sizeof(word_t));
      std::atomic_ref<word_t>(*reinterpret_cast<word_t*>(dst + i)).store(v,
                                                                         std::memory_order_relaxed);
    }
  });
}

}  // namespace bam::host::detail
