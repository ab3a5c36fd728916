// SPDX-License-Identifier: Apache-2.0
// Bring-up against QEMU's controller: identify data, namespaces, the queue count it grants,
// and a clean shutdown after which the controller comes up again.
#include "tests/nvme_guest/guest_support.hpp"

#include <bam/nvme/registers.hpp>

#include <gtest/gtest.h>

#include <string>

namespace bam::guest {
namespace {

std::string trimmed(const char* field, std::size_t n) {
  std::string s(field, n);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

TEST(Bringup, IdentifiesQemusControllerAndNamespaces) {
  opened c = open_controller(topology::main_ctrl);
  const nvme::identify_controller& id = c.ctrl->identity();
  EXPECT_EQ(trimmed(id.sn, sizeof id.sn), "bam0");  // -device nvme,serial=bam0
  EXPECT_EQ(trimmed(id.mn, sizeof id.mn), "QEMU NVMe Ctrl");
  EXPECT_EQ(id.vid, 0x1b36);
  EXPECT_EQ(c.ctrl->page_bytes(), 4096u);
  EXPECT_EQ(c.ctrl->max_transfer_bytes(), topology::main_mdts_bytes);  // mdts=10
  EXPECT_TRUE(nvme::csts_register{c.ctrl->bar().read32(nvme::reg::csts)}.rdy());
  ASSERT_EQ(c.ctrl->namespaces().size(), 2u);
  EXPECT_EQ(c.ctrl->namespace_by_id(1).block_size, 512u);
  EXPECT_EQ(c.ctrl->namespace_by_id(1).n_blocks, (64u << 20) / 512);
  EXPECT_EQ(c.ctrl->namespace_by_id(2).block_size, 4096u);
  EXPECT_EQ(c.ctrl->namespace_by_id(2).n_blocks, (16u << 20) / 4096);
  EXPECT_EQ(c.ctrl->io_queues().size(), 4u);
}

TEST(Bringup, MaxIoqpairsIsWhatTheControllerGrants) {
  {
    opened c = open_controller(topology::limited_ctrl, 16);  // max_ioqpairs=4
    EXPECT_EQ(c.ctrl->io_queues().size(), topology::limited_ioqpairs);
    EXPECT_EQ(c.ctrl->max_transfer_bytes(), topology::limited_mdts_bytes);  // mdts=3
    EXPECT_EQ(c.ctrl->namespace_by_id(1).block_size, 4096u);
    for (std::size_t q = 0; q < c.ctrl->io_queues().size(); ++q) EXPECT_EQ(c.ctrl->io_queues()[q].qid(), q + 1);
  }
  opened fewer = open_controller(topology::limited_ctrl, 2);
  EXPECT_EQ(fewer.ctrl->io_queues().size(), 2u);
}

TEST(Bringup, ShutdownCompletesAndTheControllerComesBack) {
  opened c = open_controller(topology::main_ctrl);
  const host::bar_view bar = c.ctrl->bar();
  c.ctrl->shutdown();
  const nvme::csts_register csts{bar.read32(nvme::reg::csts)};
  EXPECT_EQ(csts.shst(), nvme::shutdown_status::complete);
  EXPECT_EQ(nvme::cc_register{bar.read32(nvme::reg::cc)}.shn(), nvme::shutdown_notification::normal);
  c.ctrl.reset();
  // A shut-down controller is reset and enabled again by the next bring-up, data intact.
  c.ctrl = std::make_unique<host::controller>(c.binding->bar(), c.binding->memory(), controller_options());
  EXPECT_EQ(c.ctrl->namespaces().size(), 2u);
  EXPECT_EQ(nvme::csts_register{bar.read32(nvme::reg::csts)}.shst(), nvme::shutdown_status::normal);
}

}  // namespace
}  // namespace bam::guest
