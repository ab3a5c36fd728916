// SPDX-License-Identifier: Apache-2.0
// The content function of synthetic namespaces.
#include <bam/synthetic.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <set>
#include <vector>

namespace {

TEST(Synthetic, WordsDependOnSeedAndIndex) {
  std::set<std::uint64_t> seen;
  for (std::uint64_t seed : {0ull, 1ull, 0xdeadbeefull}) {
    for (std::uint64_t i = 0; i < 1000; ++i) seen.insert(bam::synthetic_word(seed, i));
  }
  EXPECT_EQ(seen.size(), 3000u);
  static_assert(bam::synthetic_word(7, 42) == bam::synthetic_word(7, 42));
}

TEST(Synthetic, BytesAreTheLittleEndianBytesOfWords) {
  const std::uint64_t w = bam::synthetic_word(3, 5);
  for (unsigned b = 0; b < 8; ++b) {
    EXPECT_EQ(bam::synthetic_byte(3, 5 * 8 + b), std::byte(w >> (8 * b)));
  }
}

TEST(Synthetic, FillAndMismatchAgreeAtAnyOffsetAndAlignment) {
  alignas(8) std::array<std::byte, 200> buf{};
  for (std::uint64_t offset : {0ull, 8ull, 3ull, 4096ull + 5, (1ull << 40) + 16}) {
    for (std::size_t shift : {0u, 1u, 4u}) {
      std::byte* p = buf.data() + shift;
      const std::size_t n = buf.size() - shift - 3;
      bam::synthetic_fill(9, offset, p, n);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(p[i], bam::synthetic_byte(9, offset + i));
      EXPECT_EQ(bam::synthetic_mismatch(9, offset, p, n), n);
      p[n / 2] ^= std::byte{1};
      EXPECT_EQ(bam::synthetic_mismatch(9, offset, p, n), n / 2);
      EXPECT_EQ(bam::synthetic_mismatch(10, offset, p, n), 0u);
    }
  }
}

}  // namespace
