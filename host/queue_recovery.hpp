// SPDX-License-Identifier: Apache-2.0
// host::queue_recovery: the host's half of queue-pair recovery. One background thread watches
// the recovery record (queues::queue_health) of every I/O queue pair of a set of controllers;
// when a pair's users report it failed and quiet, the thread re-creates the pair's queues at
// the controller (controller::recreate_io_queue, or controller::reset() as the last resort) and
// hands the pair back, so that its next user resets it and returns it to service.
#pragma once

#include <bam/host/controller.hpp>
#include <bam/recovery_event.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace bam::host {

struct queue_recovery_options {
  /// Sleep between rounds over the records: from `min_sleep`, growing with the time nothing
  /// happened (idle_backoff) up to `max_sleep` — so an idle recovery wakes a hundred times a
  /// second and reads three words per pair (0.2% of a core measured with 64 pairs), and a failure
  /// after a quiet spell is seen within 10 ms.
  std::chrono::microseconds min_sleep{100};
  std::chrono::microseconds max_sleep{10'000};
  /// After a failed re-creation or reset, a controller's next attempt waits `retry_min`,
  /// doubling with each failure up to `retry_max`.
  std::chrono::milliseconds retry_min{10};
  std::chrono::milliseconds retry_max{1'000};
};

/**
 * @brief Recovers the failed I/O queue pairs of a set of controllers, on one thread of its own.
 *
 * For each pair whose record shows `failed` == `quiesced` != `recreated` (the pair is out of
 * service and no thread uses it), the thread calls recreate_io_queue(i, lost_cid) and then
 * publishes `recreated` = `failed`. When a re-creation fails, the controller needs a reset:
 * the thread waits until every I/O pair of it is failed and quiesced (retrying the cheap way,
 * with a back-off, meanwhile), calls controller::reset() and publishes `recreated` for every
 * pair. Errors never leave the thread: they are counted, kept in last_error() and printed to
 * stderr once per distinct message.
 *
 * @note Memory ordering: `failed` and `quiesced` are read with system-scope acquire loads
 * (they pair with the driving threads' release stores, so `lost_cid` and every use of the pair
 * happen before the re-creation); `recreated` is published with a system-scope release store
 * after the controller's Create commands completed, which the pair's next user acquires before
 * it resets the control words. The thread is the only writer of `recreated`.
 */
class queue_recovery {
 public:
  using options = queue_recovery_options;

  /**
   * @brief Starts watching every I/O pair the controllers have now.
   * @param controllers they outlive this object; each may have one queue_recovery at a time
   * @throw bam::invalid_argument on a null controller, or one another queue_recovery watches
   */
  explicit queue_recovery(std::vector<controller*> controllers, options opts = {});
  /// Stops the thread and joins it (a re-creation in progress finishes first: at most a few
  /// admin time-outs).
  ~queue_recovery();
  queue_recovery(const queue_recovery&) = delete;
  queue_recovery& operator=(const queue_recovery&) = delete;

  /// Returns the pairs recovered since the last call, oldest first, and forgets them.
  [[nodiscard]] std::vector<recovery_event> take_events();
  /// The last failure of a re-creation or reset ("" when none).
  [[nodiscard]] std::string last_error() const;
  /// Failed re-creations and resets so far.
  [[nodiscard]] std::uint64_t errors() const;

 private:
  /// What the thread knows of one I/O pair.
  struct pair_watch {
    queues::queue_health* health = nullptr;  ///< host address of the record
    std::uint16_t qid = 0;
    std::uint32_t failed = 0;        ///< the `failed` value the thread is recovering (0: none yet)
    std::uint32_t lost_cid = 0;      ///< `lost_cid` of that failure
    std::uint64_t failed_at_ns = 0;  ///< when the thread first saw that value
  };
  /// What the thread knows of one controller.
  struct controller_watch {
    controller* ctrl = nullptr;
    std::vector<pair_watch> pairs;
    bool needs_reset = false;        ///< a re-creation failed: the next step is a reset
    std::uint64_t retry_at_ns = 0;   ///< no attempt before this (after a failure)
    std::chrono::milliseconds retry_delay{0};
  };

  void run();
  /// One look at every pair of `c`, and the re-creations or reset due; true when it acted.
  bool serve(controller_watch& c);
  /// Publishes `recreated` for pair `i` of `c` and logs the event.
  void hand_back(controller_watch& c, std::size_t i, bool controller_reset);
  /// Counts a failure of `c`, logs it, and backs its next attempt off.
  void note_failure(controller_watch& c, const char* what) noexcept;

  options options_;
  std::vector<controller_watch> watched_;  ///< the thread's own after construction
  std::vector<std::size_t> ready_;         ///< scratch of serve(): pairs failed and quiesced
  mutable std::mutex mutex_;               ///< guards everything below
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<recovery_event> events_;
  std::string last_error_;
  std::uint64_t errors_ = 0;
  std::thread thread_;  ///< last: starts once everything it uses is built
};

}  // namespace bam::host
