// SPDX-License-Identifier: Apache-2.0
// PRP1/PRP2/PRP-list resolution, offsets and faults (NVMe 1.4, section 4.3).
#include "host/emulator/prp_walker.hpp"

#include <bam/nvme/completion.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

namespace {
using bam::host::detail::prp_result;
using bam::host::detail::walk_prps;
namespace gs = bam::nvme::generic_status;
constexpr std::size_t page = 4096;
constexpr std::uint64_t base = 1ull << 42;  // bus address of page 0

/// 64 pages of host memory mapped at `base`; page p is at bus base + p * page.
class PrpWalker : public ::testing::Test {
 protected:
  PrpWalker() : mem_(64 * page) { iommu_.map(base, mem_.data(), mem_.size()); }
  static std::uint64_t bus(std::size_t p, std::size_t offset = 0) { return base + p * page + offset; }
  std::byte* host(std::size_t p, std::size_t offset = 0) { return mem_.data() + p * page + offset; }
  void set_entry(std::size_t list_page, std::size_t slot, std::uint64_t value) {
    std::memcpy(host(list_page, slot * 8), &value, 8);
  }
  prp_result walk(std::uint64_t prp1, std::uint64_t prp2, std::size_t bytes,
                  std::size_t page_bytes = page) {
    return walk_prps<std::byte>(iommu_, prp1, prp2, bytes, page_bytes, out_);
  }

  bam::host::emulated_iommu iommu_;
  std::vector<std::byte> mem_;
  std::array<std::span<std::byte>, 40> out_{};
};

TEST_F(PrpWalker, OnePageFromPrp1) {
  const auto r = walk(bus(3), 0xdead, page);  // PRP2 unused
  ASSERT_EQ(r.sc, gs::success);
  ASSERT_EQ(r.n_segments, 1u);
  EXPECT_EQ(out_[0].data(), host(3));
  EXPECT_EQ(out_[0].size(), page);
}

TEST_F(PrpWalker, OffsetPrp1SpillsIntoPrp2) {
  const auto r = walk(bus(3, 512), bus(7), page);
  ASSERT_EQ(r.sc, gs::success);
  ASSERT_EQ(r.n_segments, 2u);
  EXPECT_EQ(out_[0].data(), host(3, 512));
  EXPECT_EQ(out_[0].size(), page - 512);
  EXPECT_EQ(out_[1].data(), host(7));
  EXPECT_EQ(out_[1].size(), 512u);
}

TEST_F(PrpWalker, OffsetRules) {
  EXPECT_EQ(walk(bus(3, 2), 0, 512).sc, gs::invalid_prp_offset);          // PRP1 not dword aligned
  EXPECT_EQ(walk(bus(3), bus(7, 8), 2 * page).sc, gs::invalid_prp_offset);  // PRP2 data offset
  EXPECT_EQ(walk(bus(3), bus(9, 4), 3 * page).sc, gs::invalid_prp_offset);  // list not qword aligned
  set_entry(9, 0, bus(4));
  set_entry(9, 1, bus(5, 64));
  EXPECT_EQ(walk(bus(3), bus(9), 3 * page).sc, gs::invalid_prp_offset);  // list entry offset
}

TEST_F(PrpWalker, ListOfPages) {
  for (std::size_t i = 0; i < 4; ++i) set_entry(20, i, bus(30 + 2 * i));  // non-adjacent pages
  const auto r = walk(bus(10), bus(20), 5 * page);
  ASSERT_EQ(r.sc, gs::success);
  ASSERT_EQ(r.n_segments, 5u);
  EXPECT_EQ(out_[0].data(), host(10));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(out_[i + 1].data(), host(30 + 2 * i));
  EXPECT_EQ(out_[4].size(), page);
}

TEST_F(PrpWalker, ListMayStartInsideItsPageAndChains) {
  // The list starts two slots before the end of page 20: one data entry, then a chain pointer
  // to page 21, which holds the remaining three entries; the data ends mid-page.
  set_entry(20, page / 8 - 2, bus(30));
  set_entry(20, page / 8 - 1, bus(21));
  for (std::size_t i = 0; i < 3; ++i) set_entry(21, i, bus(32 + 2 * i));
  const std::size_t bytes = 4 * page + 100;  // PRP1 page + 4 list pages, the last one partial
  const auto r = walk(bus(10, page - 100), bus(20, page - 16), bytes);
  ASSERT_EQ(r.sc, gs::success);
  ASSERT_EQ(r.n_segments, 5u);
  EXPECT_EQ(out_[0].size(), 100u);
  EXPECT_EQ(out_[1].data(), host(30));
  EXPECT_EQ(out_[2].data(), host(32));
  EXPECT_EQ(out_[4].data(), host(36));
  EXPECT_EQ(out_[4].size(), page);
}

TEST_F(PrpWalker, ASingleSlotListPageChainsWhenMoreThanOneEntryRemains) {
  set_entry(20, page / 8 - 1, bus(21));  // the list's only slot in page 20: a chain pointer
  set_entry(21, 0, bus(30));
  set_entry(21, 1, bus(32));
  const auto r = walk(bus(10), bus(20, page - 8), 2 * page + 4);
  ASSERT_EQ(r.sc, gs::success);
  ASSERT_EQ(r.n_segments, 3u);
  EXPECT_EQ(out_[1].data(), host(30));
  EXPECT_EQ(out_[2].data(), host(32));
  EXPECT_EQ(out_[2].size(), 4u);
  // With one page left PRP2 is that page, not a list, so it must be page aligned.
  EXPECT_EQ(walk(bus(10), bus(20, page - 8), 2 * page).sc, gs::invalid_prp_offset);
}

TEST_F(PrpWalker, AdjacentHostPagesMerge) {
  for (std::size_t i = 0; i < 3; ++i) set_entry(20, i, bus(11 + i));
  const auto r = walk(bus(10), bus(20), 4 * page);
  ASSERT_EQ(r.sc, gs::success);
  ASSERT_EQ(r.n_segments, 1u);
  EXPECT_EQ(out_[0].size(), 4 * page);
}

TEST_F(PrpWalker, LargerMemoryPagesUseTheirOwnOffsets) {
  constexpr std::size_t big = 2 * page;  // CC.MPS = 1
  const auto r = walk(bus(10, page + 8), bus(40), big, big);
  ASSERT_EQ(r.sc, gs::success);
  EXPECT_EQ(out_[0].data(), host(11, 8));
  EXPECT_EQ(out_[0].size(), page - 8);
  EXPECT_EQ(walk(bus(10), bus(41), 2 * big, big).sc, gs::invalid_prp_offset);  // 4 KiB aligned only
}

TEST_F(PrpWalker, UnmappedAddressesAreDataTransferErrors) {
  EXPECT_EQ(walk(base - page, 0, 512).sc, gs::data_transfer_error);
  EXPECT_EQ(walk(bus(63), bus(64), 2 * page).sc, gs::data_transfer_error);  // PRP2 past the map
  EXPECT_EQ(walk(bus(1), bus(64), 3 * page).sc, gs::data_transfer_error);   // list unmapped
  set_entry(20, 0, bus(2));
  set_entry(20, 1, 0x1000);
  EXPECT_EQ(walk(bus(1), bus(20), 3 * page).sc, gs::data_transfer_error);  // entry unmapped
}

TEST_F(PrpWalker, MoreSegmentsThanRoomIsAnError) {
  for (std::size_t i = 0; i < 45; ++i) set_entry(20, i, bus(21 + (i % 2) * 2));
  EXPECT_EQ(walk(bus(1), bus(20), 46 * page).sc, gs::invalid_field);
}

TEST_F(PrpWalker, WritesWalkConstSegments) {
  std::array<std::span<const std::byte>, 4> out{};
  const auto r = walk_prps<const std::byte>(iommu_, bus(5), 0, 100, page, out);
  ASSERT_EQ(r.sc, gs::success);
  EXPECT_EQ(out[0].data(), host(5));
}

}  // namespace
