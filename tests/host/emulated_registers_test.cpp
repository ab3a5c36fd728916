// SPDX-License-Identifier: Apache-2.0
// The emulated controller's register file and CC/CSTS state machine: capabilities, the
// enable handshake with AQA/ASQ/ACQ, fatal misconfiguration, reset and shutdown.
#include "tests/host/emulator_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace {
using namespace bam;
using bam::test::emulator;
using bam::test::raw_nvme_driver;

std::vector<std::shared_ptr<host::namespace_store>> one_ram() {
  return {std::make_shared<host::ram_store>(512, 1024)};
}

TEST(EmulatedRegisters, CapabilitiesAndVersion) {
  emulator emu(one_ram());
  const nvme::cap_register cap = emu.driver().cap();
  EXPECT_EQ(cap.mqes(), 4095u);
  EXPECT_TRUE(cap.cqr());
  EXPECT_EQ(cap.dstrd(), 4u);
  EXPECT_EQ(cap.css() & 1, 1u);
  EXPECT_EQ(cap.mpsmin(), 0u);
  EXPECT_GE(cap.mpsmax(), 0u);
  EXPECT_EQ(cap.to(), 20u);
  const nvme::vs_register vs{emu.driver().bar().read32(nvme::reg::vs)};
  EXPECT_EQ(vs.major(), 1u);
  EXPECT_EQ(vs.minor(), 4u);
  EXPECT_EQ(emu.driver().csts().raw, 0u);
  // Doorbells start at 0x1000, 64 bytes apart: each on its own cache line.
  const auto& bar = emu.driver().bar();
  EXPECT_EQ(reinterpret_cast<std::byte*>(bar.host_doorbell(1, true, 4)) - bar.host(),
            0x1000 + 3 * 64);
  EXPECT_GE(bar.size(), 0x1000u + 2 * 65 * 64);
}

TEST(EmulatedRegisters, EnableHandshakeReadsAdminQueueRegisters) {
  emulator emu(one_ram());
  auto& drv = emu.driver();
  drv.enable(8);
  EXPECT_TRUE(drv.csts().rdy());
  EXPECT_FALSE(drv.csts().cfs());
  auto id = drv.alloc(4096);
  const auto c = drv.admin(nvme::make_identify(nvme::identify_cns::controller, 0, id.bus_at(0)));
  EXPECT_TRUE(c.status().ok());
  EXPECT_EQ(c.sq_id(), 0u);
  EXPECT_EQ(c.sq_head(), 1u);  // the SQ head after consuming the command
  // Eight commands wrap an 8-entry admin queue; the phase flips and completions keep coming.
  for (int i = 0; i < 12; ++i) {
    EXPECT_TRUE(drv.admin(nvme::make_get_number_of_queues()).status().ok());
  }
  drv.disable();
  EXPECT_EQ(drv.csts().raw, 0u);
  // Re-enabling with a new admin queue starts from its first entry.
  drv.enable(4);
  EXPECT_TRUE(drv.admin(nvme::make_get_number_of_queues()).status().ok());
}

TEST(EmulatedRegisters, FatalMisconfigurationSetsCfsUntilReset) {
  emulator emu(one_ram());
  auto& drv = emu.driver();
  const auto fatal_with = [&](nvme::cc_register cc, std::uint32_t entries, auto&& tweak) {
    drv.program_admin(entries, nvme::cc_register{});
    tweak();
    drv.bar().write32(nvme::reg::cc, cc.raw);
    EXPECT_TRUE(drv.wait_csts([](nvme::csts_register c) { return c.cfs(); }));
    EXPECT_FALSE(drv.csts().rdy());
    EXPECT_NE(emu.ctrl().fatal_reason(), nullptr);
    drv.disable();
    EXPECT_FALSE(drv.csts().cfs());
    EXPECT_EQ(emu.ctrl().fatal_reason(), nullptr);
  };
  const auto nothing = [] {};
  auto cc = raw_nvme_driver::enabling_cc();
  fatal_with(cc, 1, nothing);  // admin queues of one entry
  fatal_with(cc, 8, [&] { drv.bar().write64(nvme::reg::asq, drv.admin_queue().sq.bus_at(64)); });
  fatal_with(cc, 8, [&] { drv.bar().write64(nvme::reg::acq, 0x10000); });  // not mapped
  fatal_with(raw_nvme_driver::enabling_cc(15), 8, nothing);                // MPS above MPSMAX
  auto css = raw_nvme_driver::enabling_cc();
  css.set_css(1);
  fatal_with(css, 8, nothing);
  // After all that, a correct configuration works.
  drv.enable(8);
  EXPECT_TRUE(drv.admin(nvme::make_get_number_of_queues()).status().ok());
}

TEST(EmulatedRegisters, ShutdownNotificationCompletes) {
  emulator emu(one_ram());
  auto& drv = emu.driver();
  drv.enable();
  nvme::cc_register cc{drv.bar().read32(nvme::reg::cc)};
  cc.set_shn(nvme::shutdown_notification::normal);
  drv.bar().write32(nvme::reg::cc, cc.raw);
  EXPECT_TRUE(drv.wait_csts(
      [](nvme::csts_register c) { return c.shst() == nvme::shutdown_status::complete; }));
  drv.disable();
  EXPECT_EQ(drv.csts().shst(), nvme::shutdown_status::normal);
}

TEST(EmulatedRegisters, ResetDeletesIoQueues) {
  emulator emu(one_ram());
  auto& drv = emu.driver();
  drv.enable();
  auto q = drv.create_io_pair(1, 16);
  ASSERT_TRUE(emu.ctrl().queue_stats(1).has_value());
  drv.disable();
  EXPECT_FALSE(emu.ctrl().queue_stats(1).has_value());
  drv.enable();
  auto again = drv.create_io_pair(1, 16);  // qid 1 is free again
  auto buf = drv.alloc(512);
  EXPECT_TRUE(drv.execute(again, nvme::make_read(1, 0, 1, buf.bus_at(0), 0)).status().ok());
}

TEST(EmulatedRegisters, OtherPageSizesAndDoorbellStrides) {
  auto opts = test::test_options();
  opts.doorbell_stride = 0;
  emulator emu(one_ram(), opts);
  auto& drv = emu.driver();
  EXPECT_EQ(drv.cap().dstrd(), 0u);
  drv.enable(8, 1);  // 8 KiB memory pages
  auto q = drv.create_io_pair(1, 8);
  auto buf = drv.alloc(2 * 8192);  // 8 KiB aligned
  // PRP1 4 KiB into an 8 KiB page: 4 KiB there, the rest from PRP2 (the next 8 KiB page).
  const auto c = drv.execute(q, nvme::make_read(1, 0, 16, buf.bus_at(4096), buf.bus_at(8192)));
  EXPECT_TRUE(c.status().ok());
  // A PRP2 that is only 4 KiB aligned is an invalid offset for 8 KiB pages.
  const auto bad = drv.execute(q, nvme::make_read(1, 0, 16, buf.bus_at(0) + 4096 + 512,
                                                  buf.bus_at(8192) + 4096));
  EXPECT_EQ(test::status_of(bad), test::generic(nvme::generic_status::invalid_prp_offset));
}

}  // namespace
