// SPDX-License-Identifier: Apache-2.0
// Turning a queue completion into the exception the host reports, with the command's context.
#pragma once

#include <bam/error.hpp>
#include <bam/nvme/command.hpp>

#include "queues/queue_pair.hpp"

#include <string>
#include <string_view>

namespace bam::host {

/// Context of a command for messages: controller, queue, command id, opcode, namespace, LBAs.
nvme_context context_of(const nvme::command& cmd, std::uint32_t controller, std::uint16_t qid, std::uint16_t cid);

/// "controller 0, queue 3, command 17 (read, nsid 1, LBA 4096 +8)"
std::string describe(const nvme_context& ctx);

/**
 * @brief Returns dw0 when `r` is ok; otherwise throws bam::nvme_error (error status),
 * bam::timeout_error (timeout) or bam::error (queue failed earlier), naming `what` and `ctx`.
 */
std::uint32_t throw_if_failed(const queues::completion_result& r, const nvme_context& ctx, std::string_view what);

}  // namespace bam::host
