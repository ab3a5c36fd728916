// SPDX-License-Identifier: Apache-2.0
// Unit tests: clock order, second chance, pinned and busy slots never chosen, bounded sweeps.
#include "cache/clock_policy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bam::cache {
namespace {

class ClockPolicy : public ::testing::Test {
 protected:
  std::vector<std::uint32_t> states_ = std::vector<std::uint32_t>(4);
  std::vector<std::uint64_t> tags_ = std::vector<std::uint64_t>(4);
  std::uint64_t hand_ = 0;
  slot_table_ref<> slots_{states_, tags_};
  clock_policy_ref<> clock_{&hand_};

  void set(std::uint32_t slot, page_state w) { states_[slot] = w.raw(); }
  victim sweep() { return clock_.find_victim(slots_, clock_policy_ref<>::default_steps(slots_.size())); }
};

TEST_F(ClockPolicy, FreeSlotsInHandOrder) {
  for (std::uint32_t expected = 0; expected < 4; ++expected) {
    const victim v = sweep();
    ASSERT_EQ(v.result, status::ok);
    EXPECT_EQ(v.slot, expected);
    EXPECT_EQ(v.prior.state(), slot_state::invalid);
    EXPECT_EQ(slots_.load(v.slot).state(), slot_state::busy);
  }
  EXPECT_EQ(sweep().result, status::no_slot) << "every slot is busy";
}

TEST_F(ClockPolicy, SecondChance) {
  set(0, page_state::make(slot_state::valid, 0, false, true));
  set(1, page_state::make(slot_state::valid, 0, true, true));
  set(2, page_state::make(slot_state::valid, 0, false, false));
  set(3, page_state::make(slot_state::valid, 0, false, true));
  victim v = sweep();
  ASSERT_EQ(v.result, status::ok);
  EXPECT_EQ(v.slot, 2U) << "the first unreferenced slot";
  EXPECT_FALSE(slots_.load(0).referenced()) << "passed over: second chance used";
  EXPECT_FALSE(slots_.load(1).referenced());
  EXPECT_TRUE(slots_.load(3).referenced()) << "not reached yet";
  v = sweep();
  ASSERT_EQ(v.result, status::ok);
  EXPECT_EQ(v.slot, 0U) << "3 gets its second chance, 0 has used its own";
  v = sweep();
  ASSERT_EQ(v.result, status::ok);
  EXPECT_EQ(v.slot, 1U);
  EXPECT_TRUE(v.prior.dirty()) << "the caller learns it must write back";
}

TEST_F(ClockPolicy, PinnedAndBusyNeverChosen) {
  set(0, page_state::make(slot_state::valid, 1, false, false));
  set(1, page_state::make(slot_state::busy));
  set(2, page_state::make(slot_state::valid, 3, true, false));
  set(3, page_state::make(slot_state::valid, 0, false, false));
  for (int round = 0; round < 3; ++round) {
    const victim v = sweep();
    if (round == 0) {
      ASSERT_EQ(v.result, status::ok);
      EXPECT_EQ(v.slot, 3U);
    } else {
      EXPECT_EQ(v.result, status::no_slot);
    }
  }
  EXPECT_EQ(slots_.load(0), page_state::make(slot_state::valid, 1, false, false));
  EXPECT_EQ(slots_.load(2), page_state::make(slot_state::valid, 3, true, false));
}

TEST_F(ClockPolicy, AllPinnedGivesNoSlotWithinTheStepBound) {
  for (std::uint32_t s = 0; s < 4; ++s) set(s, page_state::make(slot_state::valid, 1, false, true));
  const victim v = clock_.find_victim(slots_, 10);
  EXPECT_EQ(v.result, status::no_slot);
  EXPECT_EQ(hand_, 10U) << "exactly max_steps slots visited";
  for (std::uint32_t s = 0; s < 4; ++s) EXPECT_TRUE(slots_.load(s).referenced()) << "pinned slots untouched";
}

}  // namespace
}  // namespace bam::cache
