// SPDX-License-Identifier: Apache-2.0
// bam: a lane group's cooperative copy of a span of elements, 16 bytes per lane per step where
// source and destination allow it.
#pragma once

#include <bam/config.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace bam::detail {

/**
 * @brief Member `rank` of a group of `size` copies its strided share of elements
 *        [0, n) from `src` to `dst` (every member passes the same src, dst and n).
 * @note When src and dst lie at the same offset modulo 16 bytes (and elements are naturally
 * aligned), the body moves in 16-byte chunks (the device loop unrolled four times), with the
 * few elements before the first and after the last 16-byte boundary copied one by one: a warp
 * then issues a quarter of the loads an element-wise copy of 4-byte elements would. Otherwise
 * it copies element by element. It does not synchronise: the caller syncs before reading what
 * other members wrote.
 * @pre ranks are 0..size-1
 */
template <class T>
BAM_HD void group_copy(unsigned rank, unsigned size, const T* src, T* dst, std::uint64_t n) {
  static_assert(std::is_trivially_copyable_v<T>);
  constexpr std::uint64_t chunk = 16;
  const auto s = reinterpret_cast<std::uintptr_t>(src), d = reinterpret_cast<std::uintptr_t>(dst);
  if constexpr (chunk % sizeof(T) == 0) {
    if (s % chunk == d % chunk && s % sizeof(T) == 0 && n * sizeof(T) >= 4 * chunk) {
      const std::uint64_t head = (chunk - s % chunk) % chunk / sizeof(T);  // elements before a boundary
      const std::uint64_t chunks = (n - head) * sizeof(T) / chunk;
      const std::uint64_t tail = head + chunks * (chunk / sizeof(T));  // first element after the body
      for (std::uint64_t j = rank; j < head; j += size) dst[j] = src[j];
      const unsigned char* cs = reinterpret_cast<const unsigned char*>(src + head);
      unsigned char* cd = reinterpret_cast<unsigned char*>(dst + head);
#if defined(__CUDA_ARCH__)
      const uint4* vs = reinterpret_cast<const uint4*>(cs);
      uint4* vd = reinterpret_cast<uint4*>(cd);
#pragma unroll 4
      for (std::uint64_t j = rank; j < chunks; j += size) vd[j] = vs[j];
#else
      for (std::uint64_t j = rank; j < chunks; j += size) std::memcpy(cd + j * chunk, cs + j * chunk, chunk);
#endif
      for (std::uint64_t j = tail + rank; j < n; j += size) dst[j] = src[j];
      return;
    }
  }
  for (std::uint64_t j = rank; j < n; j += size) dst[j] = src[j];
}

}  // namespace bam::detail
