// SPDX-License-Identifier: Apache-2.0
// Whether a queue pair is in service, who is using it, and the record through which the driving
// threads and the host's recovery hand a failed pair back and forth.
#pragma once

#include <bam/config.hpp>

#include <cstdint>

namespace bam::queues {

/// Where a queue pair is in its recovery cycle.
enum class pair_state : std::uint32_t {
  in_service = 0,  ///< commands may be submitted
  failed = 1,      ///< a wait timed out (or the controller misbehaved): no new submissions
  resetting = 2,   ///< one thread is resetting the control words after the host re-created the queues
};

/**
 * @brief The packed service word of a queue pair: `[31:30]` pair_state, `[29:0]` users (threads
 * between try_enter and leave).
 *
 * One word, so that a single fetch_add both registers a user and tells it the state, and a
 * failed pair's last user learns from its own fetch_sub that the pair is now quiet. State
 * changes add `transition(from, to)` (the state is the top field: nothing carries into or out of
 * the user count), so users entering and leaving concurrently are never lost.
 */
class pair_service {
 public:
  static constexpr unsigned state_shift = 30;                          ///< position of the state
  static constexpr std::uint32_t users_mask = (1U << state_shift) - 1;  ///< bits of the user count

  BAM_HD constexpr explicit pair_service(std::uint32_t raw = 0) noexcept : raw_(raw) {}
  BAM_HD static constexpr pair_service make(pair_state s, std::uint32_t users) noexcept {
    return pair_service((static_cast<std::uint32_t>(s) << state_shift) | (users & users_mask));
  }
  /// The value to add to a service word to move it from `from` to `to`, users unchanged.
  BAM_HD static constexpr std::uint32_t transition(pair_state from, pair_state to) noexcept {
    return (static_cast<std::uint32_t>(to) << state_shift) - (static_cast<std::uint32_t>(from) << state_shift);
  }

  BAM_HD constexpr std::uint32_t raw() const noexcept { return raw_; }
  BAM_HD constexpr pair_state state() const noexcept { return static_cast<pair_state>(raw_ >> state_shift); }
  BAM_HD constexpr std::uint32_t users() const noexcept { return raw_ & users_mask; }

 private:
  std::uint32_t raw_;
};

static_assert(pair_service{}.state() == pair_state::in_service && pair_service{}.users() == 0,
              "zeroed memory must read as a pair in service with no users");
static_assert(pair_service(pair_service::make(pair_state::failed, 5).raw() +
                           pair_service::transition(pair_state::failed, pair_state::resetting))
                      .raw() == pair_service::make(pair_state::resetting, 5).raw(),
              "a transition keeps the user count");
static_assert(pair_service(pair_service::make(pair_state::resetting, 3).raw() +
                           pair_service::transition(pair_state::resetting, pair_state::in_service))
                      .raw() == pair_service::make(pair_state::in_service, 3).raw(),
              "a backward transition wraps into the state field only");

/**
 * @brief What the threads driving a queue pair and the host's recovery tell each other, in
 * memory both reach (pinned host memory, mapped into the GPU). Each field has one writer and is
 * accessed with system-scope atomics. Values are `epoch + 1`, epoch being the number of
 * recoveries the pair completed, so a record is never mistaken for an older cycle's.
 *
 * Cycle: a thread whose wait timed out marks the pair failed and writes `lost_cid`, then
 * `failed`; the last user to leave the failed pair writes `quiesced`; the host, seeing both,
 * aborts the lost command, deletes and re-creates the I/O SQ and CQ (or resets the controller)
 * and writes `recreated`; the next thread to find the pair failed, alone, with `recreated`
 * current, resets the control words and returns the pair to service.
 */
struct queue_health {
  std::uint32_t failed = 0;     ///< device: epoch + 1 once the pair failed
  std::uint32_t quiesced = 0;   ///< device: epoch + 1 once no thread uses the failed pair
  std::uint32_t recreated = 0;  ///< host: epoch + 1 once the I/O queues were deleted and re-created
  std::uint32_t lost_cid = 0;   ///< device: the command id whose wait timed out first (no_cid: none)
  static constexpr std::uint32_t no_cid = ~std::uint32_t{0};
};

}  // namespace bam::queues
