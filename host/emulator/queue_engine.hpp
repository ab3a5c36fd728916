// SPDX-License-Identifier: Apache-2.0
// Internal to the emulated controller: the loop one serving thread runs over its submission
// queues — fetch entries in order, execute, hold completions until due and until the CQ has
// room, post them.
#pragma once

#include "host/emulator/emulated_state.hpp"

#include <cstdint>
#include <vector>

namespace bam::host::detail {

/**
 * @brief Serves a set of SQs (and the CQs they post to) for one thread.
 *
 * Single-threaded by construction: only the owning thread calls it, and the queues it serves
 * are its own (see sq_slot). Allocates only in adopt(); poll() takes no lock, allocates
 * nothing and makes no system call beyond the clock.
 */
class queue_engine {
 public:
  queue_engine(controller_core& core, command_handler& handler, command_set set) noexcept
      : core_(core), handler_(handler), set_(set) {}

  /**
   * @brief Serves exactly `sqs` from now on; forgets held completions of other queues.
   * @note Reserves room for every command the queues may hold in flight.
   */
  void adopt(std::vector<sq_slot*> sqs);
  /**
   * @brief One pass: post due and held completions, then consume every new entry of every SQ.
   * @return whether anything happened.
   * @note Tail doorbells are read with acquire loads (they publish the entries and data the
   *       submitter wrote before ringing), head doorbells with acquire loads (the consumer's
   *       reads of old entries happen before they are overwritten). A completion's first 8
   *       bytes are stored relaxed, then its last 8 bytes (SQ head, SQ id, CID, status, phase)
   *       with one 8-byte release store, which publishes the entry and the command's data.
   */
  bool poll();
  /**
   * @brief Abort: if the completion of command `cid` of `sq` is held in a delay timer, it is
   *        posted now with status Command Abort Requested (its data transfer already happened).
   * @return whether it was held (aborted); a command dropped, blocked on a full CQ or already
   *         posted is not aborted.
   */
  bool abort(sq_slot& sq, std::uint16_t cid);
  [[nodiscard]] bool idle() const noexcept {
    return sqs_.empty() && timers_.empty() && blocked_.empty();
  }
  [[nodiscard]] io_stats totals() const noexcept { return totals_.snapshot(); }

 private:
  /// A completion not yet posted.
  struct pending {
    std::uint64_t due;  ///< earliest posting time, 0 = at once
    sq_slot* sq;
    std::uint32_t dw0;
    std::uint16_t cid;
    std::uint16_t status;
  };

  /// Submission entries fetched before any of them executes.
  static constexpr std::size_t fetch_batch = 16;

  bool serve(sq_slot& sq);
  void run(sq_slot& sq, const nvme::command& cmd);
  void complete(const pending& p);
  /// Posts `p` if its CQ has room; false when full.
  bool try_post(const pending& p);
  bool post_due_timers();
  bool retry_blocked();
  [[nodiscard]] fault_command describe(const sq_slot& sq, const nvme::command& cmd) const noexcept;

  controller_core& core_;
  command_handler& handler_;
  command_set set_;
  std::vector<sq_slot*> sqs_;
  std::vector<pending> timers_;   ///< min-heap on `due`
  std::vector<pending> blocked_;  ///< due, but their CQ was full
  io_counters totals_;
};

}  // namespace bam::host::detail
