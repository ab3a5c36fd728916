// SPDX-License-Identifier: Apache-2.0
// Matching and filtering of fault rules (their effect on commands is tested end to end in
// emulated_io_test.cpp).
#include <bam/error.hpp>
#include <bam/host/emulator/fault_plan.hpp>

#include <gtest/gtest.h>

namespace {
using namespace bam::host;

fault_command read_cmd(std::uint64_t slba, std::uint32_t n, std::uint16_t qid = 1) {
  return {command_set::io, 0x02, qid, 1, true, slba, n};
}

TEST(FaultPlan, EmptyPlanMatchesNothing) {
  fault_plan plan;
  EXPECT_TRUE(plan.empty());
  EXPECT_FALSE(plan.consult(read_cmd(0, 1)));
}

TEST(FaultPlan, MatchesOnEveryField) {
  fault_plan plan;
  fault_rule rule;
  rule.match.opcode = 0x02;
  rule.match.qid = 3;
  rule.match.nsid = 1;
  rule.match.lba_first = 100;
  rule.match.lba_last = 199;
  rule.action = {fault_effect::drop};
  const auto id = plan.add(rule);
  EXPECT_FALSE(plan.empty());
  EXPECT_FALSE(plan.consult(read_cmd(100, 8, 2)));       // other queue
  EXPECT_FALSE(plan.consult(read_cmd(200, 8, 3)));       // after the range
  EXPECT_FALSE(plan.consult(read_cmd(90, 10, 3)));       // ends just before
  EXPECT_TRUE(plan.consult(read_cmd(90, 11, 3)));        // overlaps its first block
  EXPECT_TRUE(plan.consult(read_cmd(199, 1000, 3)));     // overlaps its last block
  auto write = read_cmd(150, 1, 3);
  write.opcode = 0x01;
  EXPECT_FALSE(plan.consult(write));
  auto admin = read_cmd(150, 1, 3);
  admin.queue = command_set::admin;
  EXPECT_FALSE(plan.consult(admin));
  EXPECT_EQ(plan.hits(id), 2u);
  plan.remove(id);
  EXPECT_TRUE(plan.empty());
  EXPECT_FALSE(plan.consult(read_cmd(150, 1, 3)));
}

TEST(FaultPlan, RangelessCommandsMatchOnlyRangelessRules) {
  fault_plan plan;
  fault_rule ranged;
  ranged.match.lba_last = 10;
  plan.add(ranged);
  fault_command flush{command_set::io, 0x00, 1, 1};
  EXPECT_FALSE(plan.consult(flush));
  plan.add(fault_rule{});
  EXPECT_TRUE(plan.consult(flush));
}

TEST(FaultPlan, EveryNthAndProbability) {
  fault_plan plan;
  fault_rule nth;
  nth.match.every_nth = 3;
  const auto id = plan.add(nth);
  int fired = 0;
  for (int i = 0; i < 30; ++i) fired += plan.consult(read_cmd(i, 1)).has_value();
  EXPECT_EQ(fired, 10);
  EXPECT_EQ(plan.hits(id), 10u);
  plan.clear();

  fault_rule coin;
  coin.match.probability = 0.25;
  coin.match.seed = 42;
  plan.add(coin);
  fired = 0;
  for (int i = 0; i < 4000; ++i) fired += plan.consult(read_cmd(i, 1)).has_value();
  EXPECT_GT(fired, 800);
  EXPECT_LT(fired, 1200);
}

TEST(FaultPlan, FirstFiringRuleWins) {
  fault_plan plan;
  fault_rule delay;
  delay.match.every_nth = 2;
  delay.action = {fault_effect::delay, 1000};
  fault_rule status;
  status.action = {fault_effect::status, 0, bam::nvme::status_type::generic, 0x06};
  plan.add(delay);
  plan.add(status);
  EXPECT_EQ(plan.consult(read_cmd(0, 1))->effect, fault_effect::status);  // 1st: delay skips
  EXPECT_EQ(plan.consult(read_cmd(0, 1))->effect, fault_effect::delay);   // 2nd: delay fires
}

TEST(FaultPlan, RejectsBadRulesAndTooManyRules) {
  fault_plan plan;
  fault_rule bad;
  bad.match.every_nth = 0;
  EXPECT_THROW(plan.add(bad), bam::invalid_argument);
  for (std::size_t i = 0; i < fault_plan::max_rules; ++i) plan.add(fault_rule{});
  EXPECT_THROW(plan.add(fault_rule{}), bam::invalid_argument);
}

}  // namespace
