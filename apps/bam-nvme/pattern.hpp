// SPDX-License-Identifier: Apache-2.0
// A reproducible data pattern for checking what a controller stored: every 8-byte word is a
// hash of a seed and the word's byte address in the namespace (lba * block size + offset), so
// any block can be checked on its own, by bam-nvme or by the guest tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace bam::nvme_tool {

/// The pattern's word at byte address `address` (a multiple of 8) for `seed` (splitmix64).
constexpr std::uint64_t pattern_word(std::uint64_t seed, std::uint64_t address) {
  std::uint64_t z = seed + (address / 8 + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Fills `bytes` (a multiple of 8) at `out` with the pattern from byte address `address` on.
inline void fill_pattern(std::byte* out, std::size_t bytes, std::uint64_t seed, std::uint64_t address) {
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t w = pattern_word(seed, address + i);
    std::memcpy(out + i, &w, 8);
  }
}

/// Offset of the first word of `data` that differs from the pattern; nullopt when all match.
inline std::optional<std::size_t> find_mismatch(const std::byte* data, std::size_t bytes, std::uint64_t seed,
                                                std::uint64_t address) {
  for (std::size_t i = 0; i < bytes; i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, data + i, 8);
    if (w != pattern_word(seed, address + i)) return i;
  }
  return std::nullopt;
}

}  // namespace bam::nvme_tool
