// SPDX-License-Identifier: Apache-2.0
// The emulated controller's idle policy: spin first, then sleeps that grow with the idle time
// between a floor and a ceiling.
#include "host/idle_backoff.hpp"

#include <gtest/gtest.h>

namespace {
using bam::host::idle_backoff;

TEST(IdleBackoff, SpinsUntilTheSpinTimeHasPassed) {
  const idle_backoff b(20'000, 2'000, 100'000);
  EXPECT_EQ(b.sleep_ns(0), 0u);
  EXPECT_EQ(b.sleep_ns(19'999), 0u);
  EXPECT_EQ(b.sleep_ns(20'000), 2'000u) << "then sleeps at least the floor";
}

TEST(IdleBackoff, SleepsGrowWithTheIdleTimeUpToTheCeiling) {
  const idle_backoff b(20'000, 2'000, 100'000);
  EXPECT_EQ(b.sleep_ns(32'000), 2'000u) << "32 us / 16 = 2 us";
  EXPECT_EQ(b.sleep_ns(160'000), 10'000u);
  EXPECT_EQ(b.sleep_ns(1'600'000), 100'000u);
  EXPECT_EQ(b.sleep_ns(1'000'000'000), 100'000u) << "never beyond the ceiling";
  for (std::uint64_t idle = 20'000; idle < 4'000'000; idle += 7'919)
    EXPECT_LE(b.sleep_ns(idle), std::max<std::uint64_t>(2'000, idle / idle_backoff::idle_fraction)) << idle;
}

TEST(IdleBackoff, ACeilingBelowTheFloorMeansFixedSleeps) {
  const idle_backoff b(0, 5'000, 1'000);
  EXPECT_EQ(b.sleep_ns(0), 5'000u);
  EXPECT_EQ(b.sleep_ns(10'000'000), 5'000u);
}

}  // namespace
