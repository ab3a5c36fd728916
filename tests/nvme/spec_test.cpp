// SPDX-License-Identifier: Apache-2.0
// Field encodings of the NVMe structures (sizes and offsets are static_asserts in the headers).
#include <bam/nvme/spec.hpp>

#include <gtest/gtest.h>

namespace nvme = bam::nvme;

TEST(NvmeSpec, CapRegisterFieldsRoundTrip) {
  nvme::cap_register cap{};
  cap.set_mqes(1023).set_cqr(true).set_to(20).set_dstrd(4).set_css(1).set_mpsmin(0).set_mpsmax(4);
  EXPECT_EQ(cap.mqes(), 1023u);
  EXPECT_TRUE(cap.cqr());
  EXPECT_EQ(cap.to(), 20u);
  EXPECT_EQ(cap.dstrd(), 4u);
  EXPECT_EQ(cap.css(), 1u);
  EXPECT_EQ(cap.mpsmax(), 4u);
  // QEMU 7.2's CAP as read in a guest: MQES 2047, CQR, TO 15, CSS NVM, MPSMAX 4.
  const nvme::cap_register qemu{0x0040'0020'0F01'07FFull};
  EXPECT_EQ(qemu.mqes(), 0x7ffu);
  EXPECT_TRUE(qemu.cqr());
  EXPECT_EQ(qemu.to(), 15u);
}

TEST(NvmeSpec, ControllerConfigurationEncodesLikeLinux) {
  // Linux's nvme driver enables with CSS=NVM, MPS=0 (4 KiB), AMS=RR, IOSQES=6, IOCQES=4:
  // CC = 0x00460001.
  nvme::cc_register cc{};
  cc.set_css(0).set_mps(0).set_ams(0).set_iosqes(6).set_iocqes(4).set_en(true);
  EXPECT_EQ(cc.raw, 0x00460001u);
  cc.set_shn(nvme::shutdown_notification::normal);
  EXPECT_EQ(cc.shn(), nvme::shutdown_notification::normal);
  EXPECT_EQ(cc.raw, 0x00464001u);
}

TEST(NvmeSpec, AdminQueueAttributesAreZerosBased) {
  const auto aqa = nvme::aqa_register::make(32, 64);
  EXPECT_EQ(aqa.raw, 0x003f001fu);
  EXPECT_EQ(aqa.asqs(), 31u);
  EXPECT_EQ(aqa.acqs(), 63u);
}

TEST(NvmeSpec, ReadCommandEncoding) {
  auto c = nvme::make_read(1, 0x1'2345'6789ull, 8, 0xA000, 0xB000);
  c.set_cid(0xBEEF);
  EXPECT_EQ(c.opcode(), 0x02);
  EXPECT_EQ(c.cid(), 0xBEEF);
  EXPECT_EQ(c.nsid, 1u);
  EXPECT_EQ(c.cdw10, 0x23456789u);
  EXPECT_EQ(c.cdw11, 0x1u);
  EXPECT_EQ(c.cdw12, 7u);  // 0's based
  EXPECT_EQ(c.slba(), 0x1'2345'6789ull);
  EXPECT_EQ(c.n_blocks(), 8u);
  EXPECT_EQ(c.psdt(), 0u);
  EXPECT_EQ(c.prp1, 0xA000u);
  EXPECT_EQ(c.prp2, 0xB000u);
}

TEST(NvmeSpec, QueueCreationEncoding) {
  const auto cq = nvme::make_create_io_cq(3, 1024, 0x10000);
  EXPECT_EQ(cq.opcode(), 0x05);
  EXPECT_EQ(cq.qid(), 3);
  EXPECT_EQ(cq.qsize(), 1024u);
  EXPECT_TRUE(cq.physically_contiguous());
  const auto sq = nvme::make_create_io_sq(3, 1024, 0x20000, 3);
  EXPECT_EQ(sq.opcode(), 0x01);
  EXPECT_EQ(sq.cqid(), 3);
  EXPECT_EQ(sq.cdw11, 0x00030001u);
  const auto nq = nvme::make_set_number_of_queues(64, 64);
  EXPECT_EQ(nq.fid(), 0x07);
  EXPECT_EQ(nq.cdw11, 0x003f003fu);
}

TEST(NvmeSpec, AbortEncoding) {
  const auto a = nvme::make_abort(5, 0x1234);
  EXPECT_EQ(a.opcode(), 0x08);
  EXPECT_EQ(a.cdw10, 0x12340005u);  // SQID [15:0], CID [31:16]
  EXPECT_EQ(a.qid(), 5);
  EXPECT_EQ(a.abort_cid(), 0x1234);
}

TEST(NvmeSpec, CompletionStatusDecoding) {
  nvme::completion cpl{};
  const auto st = nvme::status_field::make(nvme::status_type::generic,
                                           nvme::generic_status::lba_out_of_range, true);
  cpl.dw23 = nvme::completion::make_dw23(7, 3, 0x1234, st, true);
  // Little-endian layout of dwords 2-3 as the specification places the fields.
  EXPECT_EQ(cpl.dw23 & 0xffff, 7u);
  EXPECT_EQ(cpl.sq_id(), 3u);
  EXPECT_EQ(cpl.cid(), 0x1234u);
  EXPECT_EQ(cpl.dw23 >> 48, std::uint64_t(st.raw | 1));
  EXPECT_TRUE(cpl.phase());
  EXPECT_FALSE(cpl.status().ok());
  EXPECT_EQ(cpl.status().sc(), 0x80);
  EXPECT_EQ(cpl.status().sct(), nvme::status_type::generic);
  EXPECT_TRUE(cpl.status().dnr());
  EXPECT_STREQ(nvme::status_name(cpl.status().sct(), cpl.status().sc()), "LBA out of range");
  cpl.dw23 = nvme::completion::make_dw23(0, 0, 0, nvme::status_field{}, false);
  EXPECT_TRUE(cpl.status().ok());
  EXPECT_FALSE(cpl.phase());
}

TEST(NvmeSpec, DoorbellOffsetsFollowStride) {
  EXPECT_EQ(nvme::sq_tail_doorbell_offset(1, 0), 0x1008u);
  EXPECT_EQ(nvme::cq_head_doorbell_offset(1, 0), 0x100cu);
  EXPECT_EQ(nvme::cq_head_doorbell_offset(2, 4), 0x1000u + 5 * 64);
}

TEST(NvmeSpec, NamespaceBlockSizeFromFormat) {
  nvme::identify_namespace ns{};
  ns.nlbaf = 1;
  ns.lbaf[0] = nvme::lba_format::make(9);
  ns.lbaf[1] = nvme::lba_format::make(12);
  ns.flbas = 1;
  EXPECT_EQ(ns.block_size(), 4096u);
  ns.flbas = 0;
  EXPECT_EQ(ns.block_size(), 512u);
}
