// SPDX-License-Identifier: Apache-2.0
// Unit tests: slot state transitions, single-threaded.
#include "cache/page_key.hpp"
#include "cache/slot_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bam::cache {
namespace {

class SlotTable : public ::testing::Test {
 protected:
  std::vector<std::uint32_t> states_ = std::vector<std::uint32_t>(4);
  std::vector<std::uint64_t> tags_ = std::vector<std::uint64_t>(4);
  slot_table_ref<> slots_{states_, tags_};
  const std::uint64_t tag_a_ = make_tag({0, 10});
  const std::uint64_t tag_b_ = make_tag({1, 10});

  /// Slot 0 filled with page a, pinned once by the filler.
  void fill_a() {
    ASSERT_TRUE(slots_.try_claim(0, slots_.load(0)));
    slots_.finish_fill(0, tag_a_, 1, access_mode::read);
  }
};

TEST_F(SlotTable, StartsInvalidAndCannotBePinned) {
  EXPECT_EQ(slots_.size(), 4U);
  EXPECT_EQ(slots_.load(0), page_state::make(slot_state::invalid));
  EXPECT_FALSE(slots_.try_pin(0, tag_a_, access_mode::read));
  EXPECT_EQ(slots_.load(0).pins(), 0U) << "a failed pin is undone";
}

TEST_F(SlotTable, FillPublishesPinnedReferencedValid) {
  fill_a();
  EXPECT_EQ(slots_.load(0), page_state::make(slot_state::valid, 1, false, true));
  EXPECT_EQ(make_tag(slots_.key(0)), tag_a_);
  EXPECT_TRUE(slots_.try_pin(0, tag_a_, access_mode::read));
  EXPECT_EQ(slots_.load(0).pins(), 2U);
  EXPECT_FALSE(slots_.try_pin(0, tag_b_, access_mode::read)) << "tag mismatch";
  EXPECT_EQ(slots_.load(0).pins(), 2U);
  slots_.unpin(0);
  slots_.unpin(0);
  EXPECT_EQ(slots_.load(0), page_state::make(slot_state::valid, 0, false, true));
}

TEST_F(SlotTable, WriteMarksDirtyAndPinSetsReference) {
  fill_a();
  slots_.unpin(0);
  slots_.clear_reference(0);
  EXPECT_FALSE(slots_.load(0).referenced());
  EXPECT_TRUE(slots_.try_pin(0, tag_a_, access_mode::write));
  EXPECT_TRUE(slots_.load(0).dirty());
  EXPECT_TRUE(slots_.load(0).referenced());
}

TEST_F(SlotTable, PinnedOrBusySlotCannotBeClaimed) {
  fill_a();
  EXPECT_FALSE(slots_.try_claim(0, slots_.load(0))) << "pinned";
  slots_.unpin(0);
  const page_state before = slots_.load(0);
  ASSERT_TRUE(slots_.try_claim(0, before));
  EXPECT_EQ(slots_.load(0), page_state::make(slot_state::busy));
  EXPECT_FALSE(slots_.try_claim(0, slots_.load(0))) << "busy";
  EXPECT_FALSE(slots_.try_pin(0, tag_a_, access_mode::read)) << "busy slots are never read";
}

TEST_F(SlotTable, StaleClaimFails) {
  fill_a();
  slots_.unpin(0);
  const page_state seen = slots_.load(0);
  ASSERT_TRUE(slots_.try_pin(0, tag_a_, access_mode::read));
  EXPECT_FALSE(slots_.try_claim(0, seen)) << "the word changed since it was seen";
}

TEST_F(SlotTable, TransientPinDuringFillSurvivesTheTransition) {
  ASSERT_TRUE(slots_.try_claim(0, slots_.load(0)));
  // A reader with a stale entry increments while the slot is busy...
  const page_state during(states_[0] + 1);
  states_[0] = during.raw();
  slots_.finish_fill(0, tag_a_, 1, access_mode::read);
  EXPECT_EQ(slots_.load(0).pins(), 2U);
  // ...and undoes its increment after the fill finished.
  slots_.unpin(0);
  EXPECT_EQ(slots_.load(0), page_state::make(slot_state::valid, 1, false, true));
}

TEST_F(SlotTable, RestoreAndAbort) {
  fill_a();
  slots_.unpin(0);
  ASSERT_TRUE(slots_.try_pin(0, tag_a_, access_mode::write));
  slots_.unpin(0);
  const page_state dirty = slots_.load(0);
  ASSERT_TRUE(slots_.try_claim(0, dirty));
  slots_.restore(0, true, dirty.referenced());
  EXPECT_EQ(slots_.load(0), dirty) << "a failed write-back leaves the page as it was";
  ASSERT_TRUE(slots_.try_claim(0, dirty));
  slots_.abort(0);
  EXPECT_EQ(slots_.load(0), page_state::make(slot_state::invalid));
}

}  // namespace
}  // namespace bam::cache
