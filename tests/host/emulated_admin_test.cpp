// SPDX-License-Identifier: Apache-2.0
// Admin commands of the emulated controller, written as raw entries: Identify, Number of
// Queues, queue creation and deletion, and every error status they can return.
#include "tests/host/emulator_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {
using namespace bam;
using bam::test::emulator;
using bam::test::generic;
using bam::test::specific;
using bam::test::status_of;
namespace gs = nvme::generic_status;
namespace ss = nvme::specific_status;

class EmulatedAdmin : public ::testing::Test {
 protected:
  EmulatedAdmin()
      : emu_({std::make_shared<host::ram_store>(512, 1000),
              std::make_shared<host::ram_store>(4096, 77),
              std::make_shared<host::synthetic_store>(
                  host::synthetic_store::options{.block_size = 4096, .n_blocks = 1ull << 28})}) {
    drv().enable();
    page_ = drv().alloc(4096);
  }
  test::raw_nvme_driver& drv() { return emu_.driver(); }
  nvme::completion identify(nvme::identify_cns cns, std::uint32_t nsid) {
    std::memset(page_.host(), 0xee, 4096);
    return drv().admin(nvme::make_identify(cns, nsid, page_.bus_at(0)));
  }
  template <class T>
  const T& page_as() const {
    return *reinterpret_cast<const T*>(page_.host());
  }
  nvme::completion create_cq(std::uint16_t qid, std::uint32_t entries, std::uint64_t base) {
    return drv().admin(nvme::make_create_io_cq(qid, entries, base));
  }
  nvme::completion create_sq(std::uint16_t qid, std::uint32_t entries, std::uint64_t base,
                             std::uint16_t cqid) {
    return drv().admin(nvme::make_create_io_sq(qid, entries, base, cqid));
  }

  emulator emu_;
  dma_buffer page_;
};

TEST_F(EmulatedAdmin, IdentifyController) {
  ASSERT_TRUE(identify(nvme::identify_cns::controller, 0).status().ok());
  const auto& id = page_as<nvme::identify_controller>();
  EXPECT_EQ(std::string(id.sn, sizeof id.sn), "BAMEMU0000000001    ");
  EXPECT_EQ(std::string(id.mn, 28), "bam emulated NVMe controller");
  EXPECT_EQ(id.mn[39], ' ');
  EXPECT_EQ(id.mdts, 5u);
  EXPECT_EQ(id.sqes, 0x66u);
  EXPECT_EQ(id.cqes, 0x44u);
  EXPECT_EQ(id.nn, 3u);
  EXPECT_EQ(id.ver, nvme::vs_register::make(1, 4).raw);
  EXPECT_EQ(id.reserved526[100], 0u);  // the whole page is written, reserved bytes zero
}

TEST_F(EmulatedAdmin, IdentifyNamespaces) {
  ASSERT_TRUE(identify(nvme::identify_cns::namespace_data, 1).status().ok());
  EXPECT_EQ(page_as<nvme::identify_namespace>().nsze, 1000u);
  EXPECT_EQ(page_as<nvme::identify_namespace>().block_size(), 512u);
  ASSERT_TRUE(identify(nvme::identify_cns::namespace_data, 2).status().ok());
  EXPECT_EQ(page_as<nvme::identify_namespace>().ncap, 77u);
  EXPECT_EQ(page_as<nvme::identify_namespace>().block_size(), 4096u);
  ASSERT_TRUE(identify(nvme::identify_cns::namespace_data, 3).status().ok());
  EXPECT_EQ(page_as<nvme::identify_namespace>().nsze, 1ull << 28);  // a terabyte
  EXPECT_EQ(status_of(identify(nvme::identify_cns::namespace_data, 0)),
            generic(gs::invalid_namespace));
  EXPECT_EQ(status_of(identify(nvme::identify_cns::namespace_data, 4)),
            generic(gs::invalid_namespace));
}

TEST_F(EmulatedAdmin, ActiveNamespaceList) {
  ASSERT_TRUE(identify(nvme::identify_cns::active_namespaces, 0).status().ok());
  const auto* list = &page_as<std::uint32_t>();
  EXPECT_EQ(list[0], 1u);
  EXPECT_EQ(list[2], 3u);
  EXPECT_EQ(list[3], 0u);
  EXPECT_EQ(list[1023], 0u);
  ASSERT_TRUE(identify(nvme::identify_cns::active_namespaces, 1).status().ok());
  EXPECT_EQ(list[0], 2u);
  EXPECT_EQ(list[2], 0u);
  EXPECT_EQ(status_of(identify(nvme::identify_cns::active_namespaces, 0xfffffffe)),
            generic(gs::invalid_namespace));
}

TEST_F(EmulatedAdmin, UnsupportedCommandsAndFields) {
  EXPECT_EQ(status_of(identify(nvme::identify_cns(0x10), 0)), generic(gs::invalid_field));
  EXPECT_EQ(status_of(drv().admin(nvme::make_command(0x7f))), generic(gs::invalid_opcode));
  EXPECT_EQ(status_of(drv().admin(nvme::make_command(std::uint8_t(nvme::admin_opcode::get_log_page)))),
            generic(gs::invalid_opcode));
  auto sgl = nvme::make_identify(nvme::identify_cns::controller, 0, page_.bus_at(0));
  sgl.cdw0 |= 1u << 14;  // PSDT: SGL
  EXPECT_EQ(status_of(drv().admin(sgl)), generic(gs::invalid_field));
  auto other_feature = nvme::make_get_number_of_queues();
  other_feature.cdw10 = 0x06;  // volatile write cache
  EXPECT_EQ(status_of(drv().admin(other_feature)), generic(gs::invalid_field));
  // Identify into memory the IOMMU does not map: a data transfer error, not a crash.
  EXPECT_EQ(status_of(drv().admin(nvme::make_identify(nvme::identify_cns::controller, 0,
                                                      reinterpret_cast<std::uint64_t>(page_.host())))),
            generic(gs::data_transfer_error));
  const auto abort = drv().admin(nvme::make_command(std::uint8_t(nvme::admin_opcode::abort)));
  EXPECT_TRUE(abort.status().ok());
  EXPECT_EQ(abort.dw0 & 1, 1u);  // not aborted
}

TEST_F(EmulatedAdmin, NumberOfQueuesGrantsAtMostTheLimit) {
  auto c = drv().admin(nvme::make_set_number_of_queues(4, 2));
  ASSERT_TRUE(c.status().ok());
  EXPECT_EQ(c.dw0, 3u | (1u << 16));
  c = drv().admin(nvme::make_get_number_of_queues());
  EXPECT_EQ(c.dw0, 3u | (1u << 16));
  c = drv().admin(nvme::make_set_number_of_queues(1000, 1000));
  EXPECT_EQ(c.dw0, 63u | (63u << 16));  // max_io_queues = 64
  EXPECT_EQ(status_of(drv().admin(nvme::make_set_number_of_queues(0x10000, 1))),
            generic(gs::invalid_field));
  // The grant bounds queue ids; once a queue exists the count can no longer change.
  ASSERT_TRUE(drv().admin(nvme::make_set_number_of_queues(2, 1)).status().ok());
  auto q = drv().make_pair(2, 8);
  EXPECT_EQ(status_of(create_cq(2, 8, q.cq.bus_at(0))), specific(ss::invalid_queue_identifier));
  ASSERT_TRUE(create_cq(1, 8, q.cq.bus_at(0)).status().ok());
  EXPECT_EQ(status_of(drv().admin(nvme::make_set_number_of_queues(4, 4))), generic(0x0c));
  EXPECT_EQ(status_of(create_sq(3, 8, q.sq.bus_at(0), 1)), specific(ss::invalid_queue_identifier));
  EXPECT_TRUE(create_sq(2, 8, q.sq.bus_at(0), 1).status().ok());
}

TEST_F(EmulatedAdmin, CreateQueueErrors) {
  auto q = drv().make_pair(1, 16);
  const std::uint64_t cq = q.cq.bus_at(0), sq = q.sq.bus_at(0);
  EXPECT_EQ(status_of(create_cq(0, 16, cq)), specific(ss::invalid_queue_identifier));
  EXPECT_EQ(status_of(create_cq(65, 16, cq)), specific(ss::invalid_queue_identifier));
  EXPECT_EQ(status_of(create_cq(1, 1, cq)), specific(ss::invalid_queue_size));
  EXPECT_EQ(status_of(create_cq(1, 4097, cq)), specific(ss::invalid_queue_size));
  auto not_contiguous = nvme::make_create_io_cq(1, 16, cq);
  not_contiguous.cdw11 &= ~1u;
  EXPECT_EQ(status_of(drv().admin(not_contiguous)), generic(gs::invalid_field));
  EXPECT_EQ(status_of(create_cq(1, 16, cq + 256)), generic(gs::invalid_prp_offset));
  EXPECT_EQ(status_of(create_cq(1, 16, 0x4000)), generic(gs::data_transfer_error));
  EXPECT_EQ(status_of(create_cq(1, 4096, cq)), generic(gs::data_transfer_error));  // runs past
  ASSERT_TRUE(create_cq(1, 16, cq).status().ok());
  EXPECT_EQ(status_of(create_cq(1, 16, cq)), specific(ss::invalid_queue_identifier));  // duplicate

  EXPECT_EQ(status_of(create_sq(1, 16, sq, 0)), specific(ss::completion_queue_invalid));
  EXPECT_EQ(status_of(create_sq(1, 16, sq, 2)), specific(ss::completion_queue_invalid));
  EXPECT_EQ(status_of(create_sq(0, 16, sq, 1)), specific(ss::invalid_queue_identifier));
  EXPECT_EQ(status_of(create_sq(1, 1, sq, 1)), specific(ss::invalid_queue_size));
  auto sq_not_contiguous = nvme::make_create_io_sq(1, 16, sq, 1);
  sq_not_contiguous.cdw11 &= ~1u;
  EXPECT_EQ(status_of(drv().admin(sq_not_contiguous)), generic(gs::invalid_field));
  EXPECT_EQ(status_of(create_sq(1, 16, sq + 64, 1)), generic(gs::invalid_prp_offset));
  ASSERT_TRUE(create_sq(1, 16, sq, 1).status().ok());
  EXPECT_EQ(status_of(create_sq(1, 16, sq, 1)), specific(ss::invalid_queue_identifier));
  auto other = drv().make_pair(2, 16);
  EXPECT_TRUE(create_sq(2, 16, other.sq.bus_at(0), 1).status().ok());  // two SQs on one CQ
}

TEST_F(EmulatedAdmin, DeleteQueueErrors) {
  EXPECT_EQ(status_of(drv().admin(nvme::make_delete_io_sq(0))), specific(ss::invalid_queue_identifier));
  EXPECT_EQ(status_of(drv().admin(nvme::make_delete_io_sq(1))), specific(ss::invalid_queue_identifier));
  EXPECT_EQ(status_of(drv().admin(nvme::make_delete_io_cq(0))), specific(ss::invalid_queue_identifier));
  auto q = drv().create_io_pair(1, 16);
  EXPECT_EQ(status_of(drv().admin(nvme::make_delete_io_cq(1))), specific(ss::invalid_queue_deletion));
  EXPECT_TRUE(drv().admin(nvme::make_delete_io_sq(1)).status().ok());
  EXPECT_EQ(status_of(drv().admin(nvme::make_delete_io_sq(1))), specific(ss::invalid_queue_identifier));
  EXPECT_TRUE(drv().admin(nvme::make_delete_io_cq(1)).status().ok());
  EXPECT_EQ(status_of(drv().admin(nvme::make_delete_io_cq(1))), specific(ss::invalid_queue_identifier));
  // The qids are reusable, and the new queues work.
  auto again = drv().create_io_pair(1, 8);
  auto buf = drv().alloc(512);
  EXPECT_TRUE(drv().execute(again, nvme::make_read(1, 5, 1, buf.bus_at(0), 0)).status().ok());
  EXPECT_EQ(emu_.ctrl().queue_stats(1)->commands, 1u);
}

TEST(EmulatedAdminEntrySizes, QueuesNeedTheNvmEntrySizesInCc) {
  emulator emu({std::make_shared<host::ram_store>(512, 8)});
  auto& drv = emu.driver();
  auto cc = test::raw_nvme_driver::enabling_cc();
  cc.set_iosqes(0).set_iocqes(0);
  drv.program_admin(8, cc);
  ASSERT_TRUE(drv.wait_csts([](nvme::csts_register c) { return c.rdy(); }));
  auto q = drv.make_pair(1, 8);
  EXPECT_EQ(status_of(drv.admin(nvme::make_create_io_cq(1, 8, q.cq.bus_at(0)))),
            generic(gs::invalid_field));
}

}  // namespace
