// SPDX-License-Identifier: Apache-2.0
#include "queues/prp.hpp"

#include <gtest/gtest.h>

#include <vector>

using bam::queues::build_prps;
using bam::queues::prp_list_bytes;

namespace {
// A buffer whose pages sit at scattered bus addresses: page i at 0x100000 * (i + 1).
struct scattered {
  std::size_t page;
  std::size_t offset;
  std::uint64_t operator()(std::size_t o) const {
    const std::size_t abs = offset + o;
    return 0x100000ull * (abs / page + 1) + abs % page;
  }
};
}  // namespace

TEST(Prp, OnePageUsesPrp1Only) {
  const auto p = build_prps(scattered{4096, 512}, 512, 4096, nullptr, 0);
  EXPECT_EQ(p.prp1, 0x100000u + 512);
  EXPECT_EQ(p.prp2, 0u);
  EXPECT_EQ(prp_list_bytes(512, 512, 4096), 0u);
}

TEST(Prp, TwoPagesUsePrp2AsSecondPage) {
  const auto p = build_prps(scattered{4096, 2048}, 4096, 4096, nullptr, 0);
  EXPECT_EQ(p.prp1, 0x100000u + 2048);
  EXPECT_EQ(p.prp2, 0x200000u);
}

TEST(Prp, LongTransferUsesAList) {
  const std::size_t bytes = 64 * 1024;
  ASSERT_EQ(prp_list_bytes(0, bytes, 4096), 4096u);
  std::vector<std::uint64_t> list(512, 0);
  const auto p = build_prps(scattered{4096, 0}, bytes, 4096, list.data(), 0xABC000);
  EXPECT_EQ(p.prp1, 0x100000u);
  EXPECT_EQ(p.prp2, 0xABC000u);
  for (std::size_t i = 1; i < 16; ++i) EXPECT_EQ(list[i - 1], 0x100000u * (i + 1)) << i;
  EXPECT_EQ(list[15], 0u);
}

TEST(Prp, ListsChainWhenOnePageOfEntriesIsNotEnough) {
  // 64-byte memory pages hold 8 entries per list page; 20 data pages need 19 entries after
  // PRP1: 7 + chain, 7 + chain, 5.
  const std::size_t page = 64, pages = 20;
  ASSERT_EQ(prp_list_bytes(0, pages * page, page), 3 * page);
  std::vector<std::uint64_t> list(3 * page / 8, 0);
  const std::uint64_t list_bus = 0x7000;
  const auto p = build_prps(scattered{page, 0}, pages * page, page, list.data(), list_bus);
  EXPECT_EQ(p.prp2, list_bus);
  std::vector<std::uint64_t> walked;  // walk as a controller would
  std::size_t idx = 0;
  while (walked.size() < pages - 1) {
    const bool last_slot = idx % 8 == 7;
    if (last_slot && pages - 1 - walked.size() > 1) {
      EXPECT_EQ(list[idx], list_bus + (idx + 1) * 8) << "chain pointer";
      ++idx;
      continue;
    }
    walked.push_back(list[idx++]);
  }
  for (std::size_t i = 0; i < walked.size(); ++i) EXPECT_EQ(walked[i], 0x100000u * (i + 2)) << i;
}

TEST(Prp, Exactly512PagesFitOneListWithoutChaining) {
  // A 2 MiB page-cache slot with 4 KiB memory pages: PRP1 + 511 list entries.
  EXPECT_EQ(prp_list_bytes(0, 2 << 20, 4096), 4096u);
  EXPECT_EQ(prp_list_bytes(0, (2 << 20) + 4096, 4096), 4096u);
  EXPECT_EQ(prp_list_bytes(0, (2 << 20) + 8192, 4096), 8192u);
}
