// SPDX-License-Identifier: Apache-2.0
// bam::recovery_event: one queue pair that the host's recovery took back from failure — which
// pair, which command was lost, how long the recovery took and whether it needed a controller
// reset. bam::page_cache::take_recoveries() returns them.
#pragma once

#include <cstdint>

namespace bam {

/// A queue pair re-created after a lost command (docs/architecture.md, "Recovery").
struct recovery_event {
  static constexpr std::uint16_t no_cid = 0xffff;  ///< lost_cid when no command was named
  std::uint32_t controller = 0;  ///< the controller's index (controller_options::index)
  std::uint16_t qid = 0;         ///< the I/O queue pair's queue id
  std::uint16_t lost_cid = no_cid;  ///< the command id whose wait timed out first
  /// From when the recovery first saw the pair failed to when it handed the pair back.
  double recovery_ms = 0;
  bool controller_reset = false;  ///< re-created by a controller reset (the last resort)
};

}  // namespace bam
