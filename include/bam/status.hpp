// SPDX-License-Identifier: Apache-2.0
// bam::status: the one result type of device-side operations (device code never throws).
#pragma once

#include <bam/config.hpp>

#include <cstdint>

namespace bam {

enum class status : std::uint8_t {
  ok = 0,
  io_error,          ///< the controller completed the command with an error status
  timeout,           ///< a bounded wait expired (command completion, a fill by another thread)
  queue_failed,      ///< the queue pair was marked failed after an earlier timeout
  no_slot,           ///< every cache slot is pinned or being filled
  out_of_range,      ///< an index beyond the array or namespace
  invalid_argument,  ///< a request the callee cannot express (e.g. transfer beyond MDTS)
};

/// Name of a status, for messages.
BAM_HD constexpr const char* to_string(status s) {
  switch (s) {
    case status::ok: return "ok";
    case status::io_error: return "I/O error";
    case status::timeout: return "timeout";
    case status::queue_failed: return "queue failed";
    case status::no_slot: return "no free cache slot";
    case status::out_of_range: return "index out of range";
    case status::invalid_argument: return "invalid argument";
  }
  return "unknown status";
}

}  // namespace bam
