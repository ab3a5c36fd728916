// SPDX-License-Identifier: Apache-2.0
#include "host/io_error.hpp"

#include <bam/nvme/completion.hpp>

#include <cstdio>

namespace bam::host {

namespace {
std::string hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}
}  // namespace

nvme_context context_of(const nvme::command& cmd, std::uint32_t controller, std::uint16_t qid, std::uint16_t cid) {
  nvme_context ctx{controller, qid, cid, cmd.opcode(), cmd.nsid, 0, 0};
  if (qid != 0 && (cmd.opcode() == std::uint8_t(nvme::io_opcode::read) ||
                   cmd.opcode() == std::uint8_t(nvme::io_opcode::write))) {
    ctx.lba = cmd.slba();
    ctx.n_blocks = cmd.n_blocks();
  }
  return ctx;
}

std::string describe(const nvme_context& ctx) {
  std::string s = "controller " + std::to_string(ctx.controller) + ", " +
                  (ctx.queue == 0 ? std::string("admin queue") : "queue " + std::to_string(ctx.queue)) +
                  ", command id " + std::to_string(ctx.cid) + " (opcode " + hex(ctx.opcode);
  if (ctx.nsid != 0) s += ", nsid " + std::to_string(ctx.nsid);
  if (ctx.n_blocks != 0) s += ", LBA " + std::to_string(ctx.lba) + " +" + std::to_string(ctx.n_blocks);
  return s + ")";
}

std::uint32_t throw_if_failed(const queues::completion_result& r, const nvme_context& ctx, std::string_view what) {
  const std::string where = std::string(what) + " on " + describe(ctx);
  switch (r.status) {
    case bam::status::ok: return r.dw0;
    case bam::status::io_error: {
      const auto sct = r.nvme_status.sct();
      throw nvme_error(where + " failed: " + nvme::status_name(sct, r.nvme_status.sc()) + " (SCT " +
                           hex(unsigned(sct)) + ", SC " + hex(r.nvme_status.sc()) + ")",
                       ctx, std::uint8_t(sct), r.nvme_status.sc());
    }
    case bam::status::timeout: throw timeout_error(where + " did not complete in time; the queue is now failed", ctx);
    default: throw error(where + ": " + to_string(r.status));
  }
}

}  // namespace bam::host
