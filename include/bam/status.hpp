// SPDX-License-Identifier: Apache-2.0
// bam: the status that device-side operations return (device code never throws).
#pragma once

#include <bam/config.hpp>

#include <cstdint>

namespace bam {

/// Outcome of a device-side operation. The host turns a non-ok status into an exception.
enum class status : std::uint8_t {
  ok,                ///< the operation completed
  io_error,          ///< the backend (NVMe command, emulator) reported a failed transfer
  timeout,           ///< a bounded wait expired: a command, a fill, a write-back or a pinned slot
  queue_failed,      ///< the queue pair was marked failed by an earlier timeout or controller fault
  no_slot,           ///< every cache slot stayed pinned or busy until the time limit
  out_of_range,      ///< the range id, page index or LBA lies outside what was mapped
  invalid_argument,  ///< a request the callee cannot express (e.g. a transfer beyond MDTS)
};

/**
 * @brief Name of a status, for messages and test output.
 * @param s the status
 * @return a string literal, never null
 */
BAM_HD constexpr const char* to_string(status s) noexcept {
  switch (s) {
    case status::ok: return "ok";
    case status::io_error: return "io_error";
    case status::timeout: return "timeout";
    case status::queue_failed: return "queue_failed";
    case status::no_slot: return "no_slot";
    case status::out_of_range: return "out_of_range";
    case status::invalid_argument: return "invalid_argument";
  }
  return "unknown";
}

}  // namespace bam
