// SPDX-License-Identifier: Apache-2.0
// bam::backend command errors: a failed or lost NVMe command, recorded with its context as the
// device_error the host turns into an exception.
#pragma once

#include <bam/config.hpp>
#include <bam/device_error.hpp>
#include <bam/nvme/command.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/status.hpp>

#include <cstdint>

namespace bam::backend {

/// Where a command went: its controller (as numbered in messages), queue and command id.
struct command_site {
  std::uint32_t controller = 0;
  std::uint16_t qid = 0;
  std::uint16_t cid = 0;
};

/**
 * @brief Records command `cmd`'s failure `st` (NVMe status `nvme_status`) at `site`, for page
 * `page` of range `range`, into `errors` (record_error keeps the first failure).
 * @note Any thread, concurrently: record_error counts every failure with a relaxed atomic and
 * lets only the first claimer write the fields; the host reads them after the kernel.
 */
BAM_HD inline void record_command_error(device_error* errors, status st, nvme::status_field nvme_status,
                                        const command_site& site, const nvme::command& cmd, std::uint32_t range,
                                        std::uint64_t page) {
  device_error e{};
  e.kind = device_error_kind::command;
  e.status = std::uint8_t(st);
  e.sct = std::uint8_t(nvme_status.sct());
  e.sc = nvme_status.sc();
  e.opcode = cmd.opcode();
  e.controller = site.controller;
  e.qid = site.qid;
  e.cid = site.cid;
  e.nsid = cmd.nsid;
  e.range = range;
  e.lba = cmd.slba();
  e.n_blocks = cmd.opcode() == std::uint8_t(nvme::io_opcode::flush) ? 0 : cmd.n_blocks();
  e.index = page;
  record_error(errors, e);
}

}  // namespace bam::backend
