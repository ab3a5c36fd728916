// SPDX-License-Identifier: Apache-2.0
// cpu_warp collectives, coalesce(), and warp-coalesced cache requests (exact backend reads).
#include "cache/cache_ref.hpp"
#include "cache/coalesce.hpp"
#include "tests/cache/fake_backend.hpp"
#include "tests/cache/test_cache.hpp"
#include "tests/support/cpu_warp.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace bam::test {
namespace {

TEST(CpuWarp, CollectivesSeeEveryLane) {
  std::array<std::uint64_t, 8> shfl_got{};
  std::array<lane_mask, 8> ballot_got{};
  std::array<lane_mask, 8> match_got{};
  cpu_warp<8>().run([&](auto& lane) {
    const unsigned r = lane.rank();
    shfl_got[r] = lane.shfl(100 + r, (r + 1) % 8);
    ballot_got[r] = lane.ballot(r % 3 == 0);
    match_got[r] = lane.match_any(r / 4);
    lane.sync();
  });
  for (unsigned r = 0; r < 8; ++r) {
    EXPECT_EQ(shfl_got[r], 100 + (r + 1) % 8);
    EXPECT_EQ(ballot_got[r], 0b0100'1001U);
    EXPECT_EQ(match_got[r], r < 4 ? 0x0FU : 0xF0U);
  }
}

TEST(Coalesce, LowestRankLeadsEachKey) {
  constexpr std::array<std::uint64_t, 4> keys{7, 9, 7, 7};
  std::array<cache::coalesced_request, 4> got{};
  cpu_warp<4>().run([&](auto& lane) { got[lane.rank()] = cache::coalesce(lane, keys[lane.rank()]); });
  for (const unsigned r : {0U, 2U, 3U}) {
    EXPECT_EQ(got[r].peers, 0b1101U);
    EXPECT_EQ(got[r].leader, 0U);
    EXPECT_EQ(got[r].count, 3U);
  }
  EXPECT_EQ(got[1].peers, 0b0010U);
  EXPECT_TRUE(got[1].led_by(1));
  EXPECT_FALSE(got[2].led_by(2));
}

TEST(CoalescedCache, OneBackendReadForAWarpWantingOnePage) {
  test_cache c({.n_slots = 8, .page_bytes = 512, .range_pages = {64}});
  const auto ref = c.ref();
  std::atomic<unsigned> wrong{0};
  for (int round = 0; round < 2; ++round) {
    cpu_warp<32>().run([&](auto& lane) {
      std::uint64_t v = 0;
      const std::size_t offset = 8 * lane.rank();
      if (ref.load(lane, {0, 5}, offset, v) != status::ok || v != pattern_word(0, 5, offset)) ++wrong;
    });
  }
  EXPECT_EQ(wrong.load(), 0U);
  EXPECT_EQ(c.store().reads.load(), 1U);
  const cache::cache_stats s = ref.stats().total();
  EXPECT_EQ(s.accesses, 64U);
  EXPECT_EQ(s.coalesced, 62U);
  EXPECT_EQ(s.misses, 1U);
  EXPECT_EQ(s.hits, 1U);
  EXPECT_EQ(c.state(c.entry(0, 5).slot()).pins(), 0U);
}

TEST(CoalescedCache, DistinctPagesOfAWarpAreServedByTheirOwnLeaders) {
  test_cache c({.n_slots = 8, .page_bytes = 512, .range_pages = {64, 64}});
  const auto ref = c.ref();
  c.store().delay_us = 2000;  // leaders overlap in the backend if they run in parallel
  std::atomic<unsigned> wrong{0};
  cpu_warp<8>().run([&](auto& lane) {
    const cache::page_key key{lane.rank() % 2, lane.rank() / 2};  // 8 lanes, 4 pages x 2 ranges
    std::uint64_t v = 0;
    if (ref.load(lane, key, 64, v) != status::ok || v != pattern_word(key.range, key.page, 64)) ++wrong;
  });
  EXPECT_EQ(wrong.load(), 0U);
  EXPECT_EQ(c.store().reads.load(), 8U) << "ranges are part of the key";
  EXPECT_EQ(ref.stats().total().coalesced, 0U);
  cpu_warp<8>().run([&](auto& lane) {
    std::uint64_t v = 0;
    const cache::page_key key{0, lane.rank() / 4};  // 2 pages, 4 lanes each
    if (ref.store(lane, key, 8 * lane.rank(), std::uint64_t{lane.rank()}) != status::ok) ++wrong;
    if (ref.load(lane, key, 8 * lane.rank(), v) != status::ok || v != lane.rank()) ++wrong;
  });
  EXPECT_EQ(wrong.load(), 0U);
  EXPECT_EQ(ref.stats().of_range(0).coalesced, 12U);
  EXPECT_EQ(c.store().reads.load(), 8U) << "pages 0 and 1 of range 0 were resident";
}

}  // namespace
}  // namespace bam::test
