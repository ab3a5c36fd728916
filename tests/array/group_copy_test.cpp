// SPDX-License-Identifier: Apache-2.0
// detail::group_copy: every element lands exactly once and nothing outside the destination is
// written, for every alignment of source and destination, span length and group size.
#include <bam/detail/group_copy.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

template <class T>
void check_all_alignments(unsigned group) {
  constexpr std::size_t guard = 8;
  std::vector<T> source(600);  // offsets 0..15 put every pair of 16-byte alignments to the test
  for (std::size_t j = 0; j < source.size(); ++j) source[j] = static_cast<T>(j * 2654435761u + 7);
  for (std::size_t src_off = 0; src_off < 16; ++src_off)
    for (std::size_t dst_off = 0; dst_off < 16; ++dst_off)
      for (std::size_t n : {0, 1, 3, 15, 16, 17, 63, 64, 65, 129, 500}) {
        std::vector<T> out(guard + dst_off + n + guard, T(0x5a));
        T* dst = out.data() + guard + dst_off;
        for (unsigned rank = 0; rank < group; ++rank)
          bam::detail::group_copy(rank, group, source.data() + src_off, dst, n);
        for (std::size_t j = 0; j < n; ++j)
          ASSERT_EQ(dst[j], source[src_off + j]) << "element " << j << " of " << n << ", offsets " << src_off << "/"
                                                  << dst_off << ", group " << group;
        for (std::size_t j = 0; j < guard + dst_off; ++j) ASSERT_EQ(out[j], T(0x5a)) << "wrote before the span";
        for (std::size_t j = guard + dst_off + n; j < out.size(); ++j) ASSERT_EQ(out[j], T(0x5a)) << "wrote past it";
      }
}

TEST(GroupCopy, EveryAlignmentLengthAndGroupSizeCopiesExactly) {
  for (unsigned group : {1u, 3u, 8u, 32u}) {
    check_all_alignments<std::uint8_t>(group);
    check_all_alignments<std::uint16_t>(group);
    check_all_alignments<float>(group);
    check_all_alignments<std::uint64_t>(group);
  }
}

TEST(GroupCopy, ElementsLargerThanAChunkAreCopiedWhole) {
  struct wide {
    std::uint64_t w[3];
  };
  std::vector<wide> src(50), dst(50);
  for (std::size_t j = 0; j < src.size(); ++j) src[j] = {j, j * 3, j * 5};
  for (unsigned rank = 0; rank < 4; ++rank) bam::detail::group_copy(rank, 4, src.data(), dst.data(), src.size());
  for (std::size_t j = 0; j < src.size(); ++j) EXPECT_EQ(dst[j].w[2], j * 5);
}

}  // namespace
