// SPDX-License-Identifier: Apache-2.0
// bam: cooperative copies by a group of lanes: 16-byte words with a batch of loads in flight per
// lane (copy_words, also the NVMe backend's frame copy), and spans of any element type that move
// their aligned body as such words (group_copy).
#pragma once

#include <bam/config.hpp>

#include <nv/target>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace bam::detail {

/// The unit of copy_words.
struct alignas(16) word16 {
  std::uint32_t x, y, z, w;
};

/// 16-byte loads a lane has in flight in copy_words (the batch is unrolled).
inline constexpr unsigned copy_batch = 8;

/// How copy_words loads: plainly, or (device) without keeping the line in L1, for memory that
/// another agent rewrites between copies (the NVMe backend's frames in host memory).
enum class word_load { plain, uncached };

template <word_load How>
BAM_HD inline word16 load_word(const word16* p) {
  if constexpr (How == word_load::uncached) {
    NV_IF_TARGET(NV_IS_DEVICE,
                 (const uint4 v = __ldcv(reinterpret_cast<const uint4*>(p)); return word16{v.x, v.y, v.z, v.w};))
  }
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return *p;), (word16 v; std::memcpy(&v, p, sizeof v); return v;))
}

/**
 * @brief Member `me` of `n` copies words me, me + n, ... of [0, words) from src to dst.
 * @note The loads of a batch are all issued before its first store, so a lane has up to
 * copy_batch reads in flight at once instead of one: a full warp moves a 4 KiB page in one
 * round trip (a PCIe one for a frame in host memory). It does not synchronise.
 */
template <word_load How = word_load::plain>
BAM_HD void copy_words(word16* dst, const word16* src, std::uint64_t words, unsigned me, unsigned n) {
  for (std::uint64_t base = me; base < words; base += std::uint64_t{n} * copy_batch) {
    word16 v[copy_batch]{};
    BAM_UNROLL_BY(8)
    for (unsigned k = 0; k < copy_batch; ++k)
      if (base + k * n < words) v[k] = load_word<How>(src + base + k * n);
    BAM_UNROLL_BY(8)
    for (unsigned k = 0; k < copy_batch; ++k)
      if (base + k * n < words) {
        NV_IF_ELSE_TARGET(NV_IS_DEVICE, (dst[base + k * n] = v[k];),
                          (std::memcpy(dst + base + k * n, &v[k], sizeof(word16));))
      }
  }
}

/**
 * @brief Member `rank` of a group of `size` copies its strided share of elements
 *        [0, n) from `src` to `dst` (every member passes the same src, dst and n).
 * @note When src and dst lie at the same offset modulo 16 bytes (and elements are naturally
 * aligned), the body moves as 16-byte words through copy_words, with the few elements before
 * the first and after the last 16-byte boundary copied one by one: a warp then issues a quarter
 * of the loads an element-wise copy of 4-byte elements would, a batch of them in flight per
 * lane. Otherwise it copies element by element. It does not synchronise: the caller syncs
 * before reading what other members wrote.
 * @pre ranks are 0..size-1
 */
template <class T>
BAM_HD void group_copy(unsigned rank, unsigned size, const T* src, T* dst, std::uint64_t n) {
  static_assert(std::is_trivially_copyable_v<T>);
  constexpr std::uint64_t chunk = sizeof(word16);
  const auto s = reinterpret_cast<std::uintptr_t>(src), d = reinterpret_cast<std::uintptr_t>(dst);
  if constexpr (chunk % sizeof(T) == 0) {
    if (s % chunk == d % chunk && s % sizeof(T) == 0 && n * sizeof(T) >= 4 * chunk) {
      const std::uint64_t head = (chunk - s % chunk) % chunk / sizeof(T);  // elements before a boundary
      const std::uint64_t words = (n - head) * sizeof(T) / chunk;
      const std::uint64_t tail = head + words * (chunk / sizeof(T));  // first element after the body
      for (std::uint64_t j = rank; j < head; j += size) dst[j] = src[j];
      copy_words(reinterpret_cast<word16*>(dst + head), reinterpret_cast<const word16*>(src + head), words, rank, size);
      for (std::uint64_t j = tail + rank; j < n; j += size) dst[j] = src[j];
      return;
    }
  }
  for (std::uint64_t j = rank; j < n; j += size) dst[j] = src[j];
}

}  // namespace bam::detail
