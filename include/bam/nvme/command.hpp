// SPDX-License-Identifier: Apache-2.0
// The 64-byte NVMe submission queue entry (spec 4.2), opcodes, and builders for the commands
// bam issues. Plain dwords with typed accessors: no bitfields, no unions.
#pragma once

#include <bam/config.hpp>
#include <bam/nvme/registers.hpp>

#include <cstddef>
#include <cstdint>

namespace bam::nvme {

/// Admin command opcodes (spec 5).
enum class admin_opcode : std::uint8_t {
  delete_io_sq = 0x00,
  create_io_sq = 0x01,
  get_log_page = 0x02,
  delete_io_cq = 0x04,
  create_io_cq = 0x05,
  identify = 0x06,
  abort = 0x08,
  set_features = 0x09,
  get_features = 0x0a,
};

/// NVM command set I/O opcodes (spec NVM 3).
enum class io_opcode : std::uint8_t {
  flush = 0x00,
  write = 0x01,
  read = 0x02,
};

/// Identify CNS values.
enum class identify_cns : std::uint8_t {
  namespace_data = 0x00,
  controller = 0x01,
  active_namespaces = 0x02,
};

/// Feature identifiers used by bam.
enum class feature_id : std::uint8_t {
  number_of_queues = 0x07,
};

/// Submission queue entry: 16 dwords.
struct command {
  std::uint32_t cdw0;   ///< opcode [7:0], fuse [9:8], psdt [15:14], cid [31:16]
  std::uint32_t nsid;   ///< namespace id
  std::uint32_t cdw2;
  std::uint32_t cdw3;
  std::uint64_t mptr;   ///< metadata pointer
  std::uint64_t prp1;   ///< data pointer: PRP entry 1
  std::uint64_t prp2;   ///< data pointer: PRP entry 2 or PRP list pointer
  std::uint32_t cdw10;
  std::uint32_t cdw11;
  std::uint32_t cdw12;
  std::uint32_t cdw13;
  std::uint32_t cdw14;
  std::uint32_t cdw15;

  BAM_HD constexpr std::uint8_t opcode() const { return std::uint8_t(cdw0 & 0xff); }
  BAM_HD constexpr std::uint16_t cid() const { return std::uint16_t(cdw0 >> 16); }
  BAM_HD constexpr void set_cid(std::uint16_t cid) { cdw0 = (cdw0 & 0xffffu) | (std::uint32_t{cid} << 16); }
  /// PRP or SGL for Data Transfer (0 = PRPs).
  BAM_HD constexpr std::uint32_t psdt() const { return (cdw0 >> 14) & 0x3; }
  BAM_HD constexpr std::uint32_t fuse() const { return (cdw0 >> 8) & 0x3; }

  // NVM Read/Write fields.
  BAM_HD constexpr std::uint64_t slba() const { return std::uint64_t{cdw10} | (std::uint64_t{cdw11} << 32); }
  /// Number of logical blocks, converted from the 0's based field.
  BAM_HD constexpr std::uint32_t n_blocks() const { return (cdw12 & 0xffffu) + 1; }

  // Queue-creation fields (Create I/O SQ / CQ, Delete I/O SQ / CQ).
  BAM_HD constexpr std::uint16_t qid() const { return std::uint16_t(cdw10 & 0xffff); }
  /// Queue size in entries, converted from the 0's based field.
  BAM_HD constexpr std::uint32_t qsize() const { return (cdw10 >> 16) + 1; }
  BAM_HD constexpr bool physically_contiguous() const { return (cdw11 & 1) != 0; }
  /// Create I/O SQ: the completion queue this SQ posts to.
  BAM_HD constexpr std::uint16_t cqid() const { return std::uint16_t(cdw11 >> 16); }

  // Abort: the submission queue is qid(); the command to abort is this.
  BAM_HD constexpr std::uint16_t abort_cid() const { return std::uint16_t(cdw10 >> 16); }

  // Identify / features.
  BAM_HD constexpr std::uint8_t cns() const { return std::uint8_t(cdw10 & 0xff); }
  BAM_HD constexpr std::uint8_t fid() const { return std::uint8_t(cdw10 & 0xff); }
};
static_assert(sizeof(command) == 64);
static_assert(offsetof(command, nsid) == 4);
static_assert(offsetof(command, mptr) == 16);
static_assert(offsetof(command, prp1) == 24);
static_assert(offsetof(command, prp2) == 32);
static_assert(offsetof(command, cdw10) == 40);
static_assert(offsetof(command, cdw15) == 60);

/// Builders. The command id is left 0: the queue that submits the command assigns it.
BAM_HD constexpr command make_command(std::uint8_t opcode, std::uint32_t nsid = 0) {
  command c{};
  c.cdw0 = opcode;
  c.nsid = nsid;
  return c;
}

/// NVM Read or Write of `n_blocks` (1..65536) logical blocks starting at `slba`.
BAM_HD constexpr command make_io(io_opcode op, std::uint32_t nsid, std::uint64_t slba,
                                 std::uint32_t n_blocks, std::uint64_t prp1, std::uint64_t prp2) {
  command c = make_command(std::uint8_t(op), nsid);
  c.prp1 = prp1;
  c.prp2 = prp2;
  c.cdw10 = std::uint32_t(slba);
  c.cdw11 = std::uint32_t(slba >> 32);
  c.cdw12 = (n_blocks - 1) & 0xffffu;
  return c;
}
BAM_HD constexpr command make_read(std::uint32_t nsid, std::uint64_t slba, std::uint32_t n_blocks,
                                   std::uint64_t prp1, std::uint64_t prp2) {
  return make_io(io_opcode::read, nsid, slba, n_blocks, prp1, prp2);
}
BAM_HD constexpr command make_write(std::uint32_t nsid, std::uint64_t slba, std::uint32_t n_blocks,
                                    std::uint64_t prp1, std::uint64_t prp2) {
  return make_io(io_opcode::write, nsid, slba, n_blocks, prp1, prp2);
}
BAM_HD constexpr command make_flush(std::uint32_t nsid) {
  return make_command(std::uint8_t(io_opcode::flush), nsid);
}

/// Identify (4 KiB of data at `prp1`, page aligned).
BAM_HD constexpr command make_identify(identify_cns cns, std::uint32_t nsid, std::uint64_t prp1) {
  command c = make_command(std::uint8_t(admin_opcode::identify), nsid);
  c.prp1 = prp1;
  c.cdw10 = std::uint32_t(cns);
  return c;
}

/// Create I/O Completion Queue, physically contiguous, interrupts disabled (bam polls).
BAM_HD constexpr command make_create_io_cq(std::uint16_t qid, std::uint32_t entries, std::uint64_t base) {
  command c = make_command(std::uint8_t(admin_opcode::create_io_cq));
  c.prp1 = base;
  c.cdw10 = std::uint32_t{qid} | ((entries - 1) << 16);
  c.cdw11 = 1;  // PC = 1, IEN = 0
  return c;
}

/// Create I/O Submission Queue bound to completion queue `cqid`, physically contiguous.
BAM_HD constexpr command make_create_io_sq(std::uint16_t qid, std::uint32_t entries, std::uint64_t base,
                                           std::uint16_t cqid) {
  command c = make_command(std::uint8_t(admin_opcode::create_io_sq));
  c.prp1 = base;
  c.cdw10 = std::uint32_t{qid} | ((entries - 1) << 16);
  c.cdw11 = 1u | (std::uint32_t{cqid} << 16);  // PC = 1, QPRIO = urgent/unused
  return c;
}

BAM_HD constexpr command make_delete_io_sq(std::uint16_t qid) {
  command c = make_command(std::uint8_t(admin_opcode::delete_io_sq));
  c.cdw10 = qid;
  return c;
}
BAM_HD constexpr command make_delete_io_cq(std::uint16_t qid) {
  command c = make_command(std::uint8_t(admin_opcode::delete_io_cq));
  c.cdw10 = qid;
  return c;
}

/// Abort command `cid` of submission queue `sqid` (best effort: dw0 bit 0 of the completion is
/// 0 when the command was aborted, 1 when it was not).
BAM_HD constexpr command make_abort(std::uint16_t sqid, std::uint16_t cid) {
  command c = make_command(std::uint8_t(admin_opcode::abort));
  c.cdw10 = std::uint32_t{sqid} | (std::uint32_t{cid} << 16);
  return c;
}

/// Set Features: Number of Queues (counts are converted to the 0's based fields).
BAM_HD constexpr command make_set_number_of_queues(std::uint32_t n_sq, std::uint32_t n_cq) {
  command c = make_command(std::uint8_t(admin_opcode::set_features));
  c.cdw10 = std::uint32_t(feature_id::number_of_queues);
  c.cdw11 = ((n_sq - 1) & 0xffffu) | (((n_cq - 1) & 0xffffu) << 16);
  return c;
}
BAM_HD constexpr command make_get_number_of_queues() {
  command c = make_command(std::uint8_t(admin_opcode::get_features));
  c.cdw10 = std::uint32_t(feature_id::number_of_queues);
  return c;
}

}  // namespace bam::nvme
