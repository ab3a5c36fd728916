// SPDX-License-Identifier: Apache-2.0
// host::controller's recovery: re-creating one I/O queue pair whose command was lost, and the
// controller reset that is the last resort (docs/architecture.md, "Recovery").
#include <bam/host/controller.hpp>
#include <bam/nvme/command.hpp>
#include "host/controller_ring_pair.hpp"

#include <cstring>
#include <mutex>
#include <string>

namespace bam::host {

void controller::expect_running(std::string_view what) const {
  if (shut_down_)
    throw error("controller " + std::to_string(options_.index) + ": cannot " + std::string(what) +
                ": the controller is shut down");
}

void controller::recreate_io_queue(std::size_t i, std::uint32_t abort_cid) {
  BAM_EXPECTS(i < io_.size(), "controller " + std::to_string(options_.index) + ": no I/O queue pair " + std::to_string(i));
  BAM_EXPECTS(abort_cid == queues::queue_health::no_cid || abort_cid <= 0xffff,
              "controller " + std::to_string(options_.index) + ": command id " + std::to_string(abort_cid) +
                  " to abort is beyond 16 bits");
  std::lock_guard lock(admin_mutex_);
  ring_pair& r = *io_[i];
  const std::uint16_t qid = r.ref.qid();
  const std::string pair = "recovery of I/O queue pair " + std::to_string(qid) + ": ";
  expect_running(pair + "re-create its queues");
  if (abort_cid != queues::queue_health::no_cid && r.sq_live) {
    // Best effort (NVMe: Abort may complete without aborting, dw0 bit 0 = 1). Either way the SQ
    // is deleted next, and its Delete completes only once the controller is done with it.
    (void)admin_locked(nvme::make_abort(qid, std::uint16_t(abort_cid)),
                       pair + "abort command id " + std::to_string(abort_cid));
  }
  if (r.sq_live) {
    admin_locked(nvme::make_delete_io_sq(qid), pair + "delete I/O SQ " + std::to_string(qid));
    r.sq_live = false;
  }
  if (r.cq_live) {
    admin_locked(nvme::make_delete_io_cq(qid), pair + "delete I/O CQ " + std::to_string(qid));
    r.cq_live = false;
  }
  create_io_pair(r);
}

void controller::reset() {
  std::lock_guard lock(admin_mutex_);
  expect_running("reset");
  // CC.EN = 0 and CSTS.RDY = 0: the controller stopped processing and deleted every I/O queue.
  disable();
  for (auto& r : io_) r->sq_live = r->cq_live = false;
  // The admin queue starts afresh at the same memory: zeroed control words are a new pair (in
  // service even if it had failed; restart() would keep a failed state) and a zeroed CQ holds no
  // entry with a phase bit set. Nothing else touches them: this thread holds admin_mutex_, and
  // the disabled controller writes no completions. The register writes below order the stores
  // before the controller reads the new configuration.
  std::memset(admin_->control.host(), 0, admin_->control.size());
  std::memset(admin_->cq.host(), 0, admin_->cq.size());
  program_admin_queue();
  enable();
  const std::uint32_t granted = set_number_of_queues();
  if (granted < io_.size())
    throw error("controller " + std::to_string(options_.index) + ": after the reset it grants " +
                std::to_string(granted) + " I/O queue pairs, fewer than the " + std::to_string(io_.size()) + " in use");
  for (auto& r : io_) create_io_pair(*r);
}

}  // namespace bam::host
