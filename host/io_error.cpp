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

void throw_failure(bam::status st, nvme::status_field nvme_status, const nvme_context& ctx, std::string_view where,
                   std::string_view timeout_text, std::string_view tail) {
  BAM_EXPECTS(st != bam::status::ok, "throw_failure: " + std::string(where) + " did not fail");
  const std::string w(where);
  switch (st) {
    case bam::status::io_error: {
      const auto sct = nvme_status.sct();
      throw nvme_error(w + " failed: " + nvme::status_name(sct, nvme_status.sc()) + " (SCT " + hex(unsigned(sct)) +
                           ", SC " + hex(nvme_status.sc()) + ")" + std::string(tail),
                       ctx, std::uint8_t(sct), nvme_status.sc());
    }
    case bam::status::timeout: throw timeout_error(w + std::string(timeout_text) + std::string(tail), ctx);
    default: throw error(w + ": " + to_string(st) + std::string(tail));
  }
}

void throw_device_error(const device_error& e, const std::string& array) {
  const auto st = bam::status(e.status);
  const std::string more = e.count > 1 ? " (" + std::to_string(e.count) + " failures; the first is described)" : "";
  switch (e.kind) {
    case device_error_kind::access: {
      if (st == bam::status::out_of_range) {
        throw invalid_argument("bam::array " + array + ": index " + std::to_string(e.index) + " is out of range" +
                               more);
      }
      throw_failure(st, nvme::status_field{}, nvme_context{},
                    "bam::array " + array + ": access to element " + std::to_string(e.index), " timed out", more);
    }
    case device_error_kind::command: {
      const nvme_context ctx{e.controller, e.qid, e.cid, e.opcode, e.nsid, e.lba, e.n_blocks};
      const char* op = e.opcode == std::uint8_t(nvme::io_opcode::write)   ? "write"
                       : e.opcode == std::uint8_t(nvme::io_opcode::flush) ? "flush"
                                                                          : "read";
      const std::string where = "bam::array " + array + ", page " + std::to_string(e.index) + ": " + op +
                                " on controller " + std::to_string(e.controller) + ", queue " +
                                std::to_string(e.qid) + ", command id " + std::to_string(e.cid) + " (nsid " +
                                std::to_string(e.nsid) + ", LBA " + std::to_string(e.lba) + " +" +
                                std::to_string(e.n_blocks) + ")";
      throw_failure(st, nvme::status_field::make(nvme::status_type(e.sct), e.sc), ctx, where,
                    " did not complete in time", more);
    }
    case device_error_kind::none: break;
  }
  throw error("bam::array " + array + ": the device error record is claimed but its kind (" +
              std::to_string(int(e.kind)) + ") is neither access nor command");
}

std::uint32_t throw_if_failed(const queues::completion_result& r, const nvme_context& ctx, std::string_view what) {
  if (r.status == bam::status::ok) return r.dw0;
  throw_failure(r.status, r.nvme_status, ctx, std::string(what) + " on " + describe(ctx),
                " did not complete in time; the queue is now failed");
}

}  // namespace bam::host
