// SPDX-License-Identifier: Apache-2.0
// bam: the content of a synthetic namespace, computed on the host or the GPU without storing it,
// so that any byte read from a terabyte-sized emulated namespace can be verified where it lands.
#pragma once

#include <bam/config.hpp>

#include <cstddef>
#include <cstdint>

namespace bam {

/**
 * @brief The 8-byte word at byte offset `8 * word_index` of a synthetic namespace.
 *
 * A splitmix64 finaliser over `seed + (word_index + 1) * golden_gamma`: every word differs from
 * its neighbours and from the same word under another seed, and costs a few multiplies.
 * The namespace is little-endian: byte `o` is byte `o % 8` of word `o / 8`.
 */
BAM_HD constexpr std::uint64_t synthetic_word(std::uint64_t seed, std::uint64_t word_index) {
  std::uint64_t z = seed + (word_index + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/** @brief The byte at `byte_offset` of a synthetic namespace. */
BAM_HD constexpr std::byte synthetic_byte(std::uint64_t seed, std::uint64_t byte_offset) {
  return std::byte(synthetic_word(seed, byte_offset >> 3) >> (8 * (byte_offset & 7)));
}

namespace detail {
/// True when both the namespace offset and the buffer address sit on a word boundary, so a
/// whole word can be stored or compared at once.
BAM_HD inline bool synthetic_word_aligned(std::uint64_t byte_offset, const void* p) {
  return ((byte_offset | reinterpret_cast<std::uintptr_t>(p)) & 7) == 0;
}
}  // namespace detail

/**
 * @brief Writes bytes [byte_offset, byte_offset + bytes) of a synthetic namespace to `dst`.
 * @note Word-at-a-time when `byte_offset` and `dst` are 8-byte aligned (four independent words
 *       per step, so their multiplies overlap), byte-at-a-time otherwise.
 */
BAM_HD inline void synthetic_fill(std::uint64_t seed, std::uint64_t byte_offset, std::byte* dst,
                                  std::size_t bytes) {
  std::size_t i = 0;
  if (detail::synthetic_word_aligned(byte_offset, dst)) {
    auto* words = reinterpret_cast<std::uint64_t*>(dst);
    const std::uint64_t first = byte_offset >> 3;
    for (; i + 32 <= bytes; i += 32) {
      const std::uint64_t w = first + (i >> 3);
      const std::uint64_t a = synthetic_word(seed, w), b = synthetic_word(seed, w + 1),
                          c = synthetic_word(seed, w + 2), d = synthetic_word(seed, w + 3);
      words[(i >> 3)] = a;
      words[(i >> 3) + 1] = b;
      words[(i >> 3) + 2] = c;
      words[(i >> 3) + 3] = d;
    }
    for (; i + 8 <= bytes; i += 8) words[i >> 3] = synthetic_word(seed, first + (i >> 3));
  }
  for (; i < bytes; ++i) dst[i] = synthetic_byte(seed, byte_offset + i);
}

/**
 * @brief Compares `src` with bytes [byte_offset, byte_offset + bytes) of a synthetic namespace.
 * @return the index of the first differing byte, or `bytes` when every byte matches.
 */
BAM_HD inline std::size_t synthetic_mismatch(std::uint64_t seed, std::uint64_t byte_offset,
                                             const std::byte* src, std::size_t bytes) {
  std::size_t i = 0;
  if (detail::synthetic_word_aligned(byte_offset, src)) {
    const auto* words = reinterpret_cast<const std::uint64_t*>(src);
    const std::uint64_t first = byte_offset >> 3;
    for (; i + 32 <= bytes; i += 32) {  // four words per step, as in synthetic_fill
      const std::uint64_t w = first + (i >> 3);
      const std::uint64_t* p = words + (i >> 3);
      if (((p[0] ^ synthetic_word(seed, w)) | (p[1] ^ synthetic_word(seed, w + 1)) |
           (p[2] ^ synthetic_word(seed, w + 2)) | (p[3] ^ synthetic_word(seed, w + 3))) != 0) {
        break;
      }
    }
    while (i + 8 <= bytes && words[i >> 3] == synthetic_word(seed, first + (i >> 3))) i += 8;
  }
  for (; i < bytes; ++i) {
    if (src[i] != synthetic_byte(seed, byte_offset + i)) return i;
  }
  return bytes;
}

}  // namespace bam
