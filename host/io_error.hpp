// SPDX-License-Identifier: Apache-2.0
// Turning a failed status (a queue completion, a device error record) into the exception the
// host reports, with the command's context.
#pragma once

#include <bam/device_error.hpp>
#include <bam/error.hpp>
#include <bam/nvme/command.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/status.hpp>

#include "queues/queue_pair.hpp"

#include <string>
#include <string_view>

namespace bam::host {

/// Context of a command for messages: controller, queue, command id, opcode, namespace, LBAs.
nvme_context context_of(const nvme::command& cmd, std::uint32_t controller, std::uint16_t qid, std::uint16_t cid);

/// "controller 0, queue 3, command 17 (read, nsid 1, LBA 4096 +8)"
std::string describe(const nvme_context& ctx);

/**
 * @brief The one path from a failed bam::status to an exception: bam::nvme_error for io_error
 * ("WHERE failed: <NVMe status name> (SCT x, SC y)TAIL"), bam::timeout_error for timeout
 * ("WHERE<timeout_text>TAIL"), bam::error for the rest ("WHERE: <status>TAIL").
 * @param nvme_status the completion's status, used for io_error only
 * @param ctx the command (empty for failures no command describes)
 * @param where names what failed, e.g. "read on controller 0, queue 3, command id 17 (...)"
 * @param timeout_text follows `where` for a timeout, e.g. " did not complete in time"
 * @param tail ends every message, e.g. " (3 failures; the first is described)"
 * @throw bam::invalid_argument when `st` is ok: there is nothing to report
 */
[[noreturn]] void throw_failure(bam::status st, nvme::status_field nvme_status, const nvme_context& ctx,
                                std::string_view where, std::string_view timeout_text, std::string_view tail = {});

/**
 * @brief Throws what a claimed device error record describes, by its kind: for `access`,
 * bam::invalid_argument (index out of range), bam::timeout_error or bam::error naming the
 * element; for `command`, as throw_failure() names the command (read, write or flush).
 * @param array names the array the record concerns, e.g. "'embeddings'"
 * @throw bam::error when the record's kind is neither access nor command
 */
[[noreturn]] void throw_device_error(const device_error& e, const std::string& array);

/**
 * @brief Returns dw0 when `r` is ok; otherwise throws bam::nvme_error (error status),
 * bam::timeout_error (timeout) or bam::error (queue failed earlier), naming `what` and `ctx`.
 */
std::uint32_t throw_if_failed(const queues::completion_result& r, const nvme_context& ctx, std::string_view what);

}  // namespace bam::host
