// SPDX-License-Identifier: Apache-2.0
// The SSD timing model on a virtual clock (the controller's use of it is tested in
// emulated_io_test.cpp).
#include <bam/error.hpp>
#include <bam/host/emulator/timing_model.hpp>

#include <gtest/gtest.h>

namespace {
using namespace bam::host;

constexpr drive_profile test_drive{"test", 10'000, 20'000, 100'000, 50'000, 1'000'000'000,
                                   500'000'000};

TEST(TimingModel, IdleDriveCompletesAfterTheLatency) {
  timing_model model({test_drive, 1, 128 * 1024});
  EXPECT_EQ(model.schedule(io_direction::read, 0, 4096, 1'000'000), 1'010'000u);
  EXPECT_EQ(model.schedule(io_direction::write, 0, 4096, 2'000'000), 2'020'000u);
}

TEST(TimingModel, DeepQueuesSeeTheIopsLimit) {
  timing_model model({test_drive, 1, 128 * 1024});
  // 1000 reads at once: one every 10 µs (100 k IOPS) after the first.
  std::uint64_t last = 0;
  for (int i = 0; i < 1000; ++i) last = model.schedule(io_direction::read, i * 4096ull, 4096, 0);
  EXPECT_EQ(last, 1000u * 10'000u);
}

TEST(TimingModel, LargeTransfersSeeTheBandwidthLimit) {
  timing_model model({test_drive, 1, 1 << 30});
  // 64 MiB at 1 GB/s take 67.1 ms however they are cut.
  std::uint64_t last = 0;
  for (int i = 0; i < 512; ++i) last = model.schedule(io_direction::read, i * 131072ull, 131072, 0);
  EXPECT_NEAR(double(last), 67.108864e6, 1e3);
}

TEST(TimingModel, StripingMultipliesThroughput) {
  timing_model one({test_drive, 1, 4096});
  timing_model four({test_drive, 4, 4096});
  std::uint64_t t1 = 0, t4 = 0;
  for (int i = 0; i < 400; ++i) {
    t1 = std::max(t1, one.schedule(io_direction::read, i * 4096ull, 4096, 0));
    t4 = std::max(t4, four.schedule(io_direction::read, i * 4096ull, 4096, 0));
  }
  EXPECT_EQ(t1, 400u * 10'000u);
  EXPECT_EQ(t4, 100u * 10'000u);
  // A transfer spanning drives completes when its slowest piece does.
  timing_model fresh({test_drive, 4, 4096});
  EXPECT_EQ(fresh.schedule(io_direction::read, 0, 4 * 4096, 0), 10'000u);
}

TEST(TimingModel, FlushWaitsForAcceptedWork) {
  timing_model model({test_drive, 2, 4096});
  const auto w = model.schedule(io_direction::write, 0, 4096, 0);
  EXPECT_EQ(model.schedule_flush(0), std::max<std::uint64_t>(w, 20'000));
  for (int i = 0; i < 10; ++i) (void)model.schedule(io_direction::write, 0, 4096, 0);
  EXPECT_EQ(model.schedule_flush(0), 11u * 20'000u);  // drive 0's ten queued writes
}

TEST(TimingModel, PresetsAreComplete) {
  for (const auto& d : {drive_presets::intel_optane_p5800x, drive_presets::samsung_980_pro}) {
    EXPECT_NO_THROW(timing_model({d, 1, 4096}));
    EXPECT_GT(d.read_latency_ns, 0u);
  }
  EXPECT_THROW(timing_model({drive_profile{}, 1, 4096}), bam::invalid_argument);
}

TEST(TimingModel, DriveArraysAreSelectedByName) {
  const auto optane = drive_array("optane-p5800x");
  EXPECT_STREQ(optane.drive.name, drive_presets::intel_optane_p5800x.name);
  EXPECT_EQ(optane.n_drives, 1u);
  EXPECT_EQ(optane.drive.read_latency_ns, 5'000u);
  EXPECT_EQ(optane.drive.read_iops, 1'500'000u);
  EXPECT_EQ(optane.drive.read_bytes_per_s, 7'200'000'000u);
  const auto samsung = drive_array("980pro:4");
  EXPECT_STREQ(samsung.drive.name, drive_presets::samsung_980_pro.name);
  EXPECT_EQ(samsung.n_drives, 4u);
  EXPECT_EQ(samsung.drive.read_latency_ns, 45'000u);
  EXPECT_EQ(samsung.drive.read_iops, 1'000'000u);
  EXPECT_EQ(samsung.stripe_bytes, 128u * 1024);
  for (const char* bad : {"optane", "980pro:0", "980pro:65", "980pro:x", "980pro:4x", ""}) {
    EXPECT_THROW((void)drive_array(bad), bam::invalid_argument) << bad;
  }
}

TEST(TimingModel, PresetsCapTheReadRate) {
  // 12,000 random 4 KiB reads arriving at once: one drive serves them at its IOPS figure, four
  // striped drives (128 KiB units, reads spread over 96 units) at four times that.
  const auto last_completion = [](const char* spec) {
    timing_model model(drive_array(spec));
    std::uint64_t last = 0;
    for (std::uint64_t i = 0; i < 12'000; ++i) {
      last = std::max(last, model.schedule(io_direction::read, (i % 3072) * 4096, 4096, 0));
    }
    return last;
  };
  // (Service times are whole nanoseconds: 1 s / 1.5 M is 666 ns, hence 1 % slack.)
  EXPECT_NEAR(double(last_completion("optane-p5800x")), 8e6, 8e4);  // 12 k / 1.5 M IOPS
  EXPECT_NEAR(double(last_completion("980pro")), 12e6, 12e4);       // 12 k / 1.0 M IOPS
  EXPECT_NEAR(double(last_completion("optane-p5800x:4")), 2e6, 2e4);
  EXPECT_NEAR(double(last_completion("980pro:4")), 3e6, 3e4);
}

}  // namespace
