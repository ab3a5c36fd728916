// SPDX-License-Identifier: Apache-2.0
// Unit tests: the packed slot state word and page-table entries.
#include "cache/page_state.hpp"
#include "cache/page_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bam::cache {
namespace {

TEST(PageState, FieldsRoundTrip) {
  for (const slot_state s : {slot_state::invalid, slot_state::busy, slot_state::valid}) {
    for (const std::uint32_t pins : {0U, 1U, 12345U, page_state::max_pins}) {
      for (const bool dirty : {false, true}) {
        for (const bool ref : {false, true}) {
          const page_state w = page_state::make(s, pins, dirty, ref);
          EXPECT_EQ(w.state(), s);
          EXPECT_EQ(w.pins(), pins);
          EXPECT_EQ(w.dirty(), dirty);
          EXPECT_EQ(w.referenced(), ref);
        }
      }
    }
  }
}

TEST(PageState, TransitionsKeepPinsAndFlags) {
  const page_state busy = page_state::make(slot_state::busy, 5, false, false);
  const page_state valid(busy.raw() + page_state::transition(slot_state::busy, slot_state::valid));
  EXPECT_EQ(valid, page_state::make(slot_state::valid, 5));
  const page_state back(valid.raw() + page_state::transition(slot_state::valid, slot_state::busy));
  EXPECT_EQ(back, busy);
  const page_state invalid(busy.raw() + page_state::transition(slot_state::busy, slot_state::invalid));
  EXPECT_EQ(invalid, page_state::make(slot_state::invalid, 5));
}

TEST(PageState, ClaimableOnlyWhenUnpinnedAndNotBusy) {
  EXPECT_TRUE(page_state::make(slot_state::invalid).claimable());
  EXPECT_TRUE(page_state::make(slot_state::valid, 0, true, true).claimable());
  EXPECT_FALSE(page_state::make(slot_state::valid, 1).claimable());
  EXPECT_FALSE(page_state::make(slot_state::busy).claimable());
  EXPECT_FALSE(page_state::make(slot_state::invalid, 1).claimable());
}

TEST(PageTable, ClaimPublishClear) {
  std::vector<std::uint32_t> words(8);
  const page_table_ref<> table{cuda::std::span<std::uint32_t>(words)};
  EXPECT_EQ(table.size(), 8U);
  EXPECT_TRUE(table.load(3).empty());
  EXPECT_TRUE(table.try_claim(3));
  EXPECT_FALSE(table.try_claim(3)) << "a page has one filler at a time";
  EXPECT_TRUE(table.load(3).filling());
  table.publish(3, 0);
  EXPECT_TRUE(table.load(3).resident());
  EXPECT_EQ(table.load(3).slot(), 0U);
  EXPECT_FALSE(table.try_claim(3));
  table.clear(3);
  EXPECT_TRUE(table.load(3).empty());
  EXPECT_TRUE(table.try_claim(3));
}

}  // namespace
}  // namespace bam::cache
