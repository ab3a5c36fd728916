// SPDX-License-Identifier: Apache-2.0
// host::controller: the NVMe driver's control path. It brings a controller up through its BAR0
// (reset, admin queue, identify, number of queues, I/O queue pairs), runs admin commands, and
// hands out the I/O queue pairs that GPU threads (or CPU threads) drive. The same code drives
// the emulated controller and real ones; only the bar_view and the memory_resource differ.
#pragma once

#include <bam/error.hpp>
#include <bam/host/drivers/bar.hpp>
#include <bam/memory.hpp>
#include <bam/nvme/command.hpp>
#include <bam/nvme/identify.hpp>

#include "queues/queue_pair.hpp"

#include <atomic>
#include <chrono>
#include <exception>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace bam::host {

/// A namespace as Identify Namespace reports it.
struct namespace_info {
  std::uint32_t nsid = 0;
  std::uint32_t block_size = 0;  ///< bytes per logical block
  std::uint64_t n_blocks = 0;    ///< namespace size in blocks
};

/// Which processor drives the I/O queue pairs; decides where their control words live and
/// which addresses (CPU or GPU) the queue_pair_refs hold.
enum class io_driver { gpu, cpu };

struct controller_options {
  std::uint32_t io_queue_pairs = 16;  ///< requested; the controller may grant fewer
  std::uint32_t queue_depth = 1024;   ///< entries per I/O SQ and CQ, capped by CAP.MQES + 1
  std::uint32_t admin_depth = 32;     ///< entries of the admin SQ and CQ
  io_driver driver = io_driver::gpu;  ///< in CPU-only builds both sides are the CPU
  /// Where I/O rings live: host memory (pinned), or GPU memory for a controller that reaches it
  /// by peer-to-peer DMA.
  memory_kind ring_memory = memory_kind::host;
  std::chrono::milliseconds admin_timeout{10'000};  ///< per admin command
  std::uint32_t index = 0;  ///< this controller's number in error messages
};

class controller {
 public:
  /**
   * @brief Resets and enables the controller, identifies it and its namespaces, and creates
   * the I/O queue pairs.
   * @param bar the controller's BAR0
   * @param memory DMA memory for rings, PRP lists and identify data, and memory for the queue
   * control words (memory_kind::device when options.driver is gpu)
   * @throw bam::timeout_error when CSTS.RDY does not follow CC.EN within CAP.TO
   * @throw bam::nvme_error when an admin command fails, with its context
   */
  controller(bar_view bar, memory_resource& memory, controller_options options = {});
  /// Deletes the I/O queues and sends a normal shutdown notification; errors are swallowed
  /// here — call shutdown() first to see them.
  ~controller();
  controller(const controller&) = delete;
  controller& operator=(const controller&) = delete;

  /// Deletes the I/O queues and shuts the controller down (CC.SHN, waits for CSTS.SHST).
  void shutdown();

  [[nodiscard]] const nvme::identify_controller& identity() const noexcept { return *identity_; }
  [[nodiscard]] const std::vector<namespace_info>& namespaces() const noexcept { return namespaces_; }
  /// @throw bam::invalid_argument when the controller has no active namespace `nsid`
  [[nodiscard]] const namespace_info& namespace_by_id(std::uint32_t nsid) const;
  /// Memory page size (CC.MPS) that PRPs are built for.
  [[nodiscard]] std::size_t page_bytes() const noexcept { return page_bytes_; }
  /// Largest transfer of one command (MDTS), in bytes; 0 means unlimited.
  [[nodiscard]] std::size_t max_transfer_bytes() const noexcept { return max_transfer_bytes_; }
  [[nodiscard]] std::uint32_t queue_depth() const noexcept { return depth_; }
  [[nodiscard]] std::uint32_t index() const noexcept { return options_.index; }
  [[nodiscard]] io_driver driver() const noexcept { return options_.driver; }
  [[nodiscard]] const bar_view& bar() const noexcept { return bar_; }

  /// The I/O queue pairs (qid 1..n), with addresses for the side options.driver names.
  [[nodiscard]] const std::vector<queues::queue_pair_ref<>>& io_queues() const noexcept { return io_refs_; }
  /// The recovery record of I/O queue pair `i` (qid i + 1), at its host address.
  [[nodiscard]] queues::queue_health& io_health(std::size_t i) const;

  /**
   * @brief Runs one admin command and waits for it.
   * @param what names the command in error messages
   * @throw bam::nvme_error on an error status, bam::timeout_error after options.admin_timeout,
   * bam::error when the admin queue failed earlier (only reset() brings it back)
   * @note Thread-safe: admin commands, recreate_io_queue(), reset() and shutdown() are
   * serialised by one mutex, so a recovery thread may issue them while the owner does too.
   */
  std::uint32_t admin(const nvme::command& cmd, std::string_view what);

  /**
   * @brief Recovery of I/O queue pair `i` (qid i + 1): aborts command `abort_cid` (best effort;
   * "not aborted" is fine), deletes the I/O SQ and CQ, and creates them again at the same
   * memory, qid and depth. Queues a failed earlier attempt already deleted are not deleted again.
   * @pre Nobody uses the pair: it is out of service and quiesced (queue_health), so no thread
   * touches its rings or doorbells. Its control words are left as they are: the pair's next
   * user resets them (queue_pair_ref::try_enter), or, for a pair the host drives itself, the
   * owner calls restart().
   * @throw bam::nvme_error / bam::timeout_error naming the step that failed; bam::error when the
   * controller is shut down or its admin queue failed
   */
  void recreate_io_queue(std::size_t i, std::uint32_t abort_cid = queues::queue_health::no_cid);

  /**
   * @brief The last resort: a controller reset (CC.EN = 0, wait for CSTS.RDY = 0), the admin
   * queue set up afresh at the same memory, CC.EN = 1, Number of Queues, and every I/O CQ and SQ
   * created again at the same memory, qid and depth.
   * @pre Every I/O pair is out of service and quiesced: the reset discards every outstanding
   * command of every queue. The I/O pairs' control words are left as they are (their users reset
   * them through the recovery record, see recreate_io_queue()).
   * @throw bam::timeout_error when CSTS.RDY does not follow CC.EN, bam::nvme_error /
   * bam::timeout_error when an admin command fails, bam::error when fewer queues are granted
   * than before or the controller is shut down
   */
  void reset();

  /**
   * @brief Makes the caller the one recovery of this controller's I/O pairs (queue_recovery):
   * two would both re-create a pair, the second deleting queues the first had handed back.
   * @return false when another recovery holds the controller
   * @note acq_rel exchange: a new holder sees everything its predecessor did before release.
   */
  [[nodiscard]] bool claim_recovery() noexcept { return !recovery_claimed_.exchange(true, std::memory_order_acq_rel); }
  /// Ends a claim_recovery() (release store).
  void release_recovery() noexcept { recovery_claimed_.store(false, std::memory_order_release); }

 private:
  struct ring_pair;  // memory of one queue pair

  /// admin() with admin_mutex_ held by the caller.
  std::uint32_t admin_locked(const nvme::command& cmd, std::string_view what);
  /// Requires admin_mutex_: Set Features (Number of Queues); returns the I/O pairs granted.
  std::uint32_t set_number_of_queues();
  /// Requires admin_mutex_: creates I/O pair `r`'s CQ, then its SQ, where they do not exist.
  void create_io_pair(ring_pair& r);
  /// Requires admin_mutex_: throws bam::error naming `what` when the controller was shut down.
  void expect_running(std::string_view what) const;
  void disable();
  /// Points AQA/ASQ/ACQ at the admin rings (the controller is disabled).
  void program_admin_queue();
  void enable();
  void identify();
  void create_io_queues();
  /// Requires admin_mutex_: deletes every live I/O SQ and CQ; returns the first failure.
  std::exception_ptr delete_io_queues() noexcept;
  void wait_ready(bool ready, std::string_view during);
  std::unique_ptr<ring_pair> make_rings(std::uint16_t qid, std::uint32_t depth, memory_kind ring_memory,
                                        io_driver driver);

  bar_view bar_;
  memory_resource& memory_;
  controller_options options_;
  nvme::cap_register cap_{};
  std::size_t page_bytes_ = 4096;
  std::size_t max_transfer_bytes_ = 0;
  std::uint32_t depth_ = 0;
  std::chrono::milliseconds ready_timeout_{0};
  dma_buffer identify_buffer_;
  std::unique_ptr<nvme::identify_controller> identity_;
  std::vector<namespace_info> namespaces_;
  std::unique_ptr<ring_pair> admin_;
  std::vector<std::unique_ptr<ring_pair>> io_;
  std::vector<queues::queue_pair_ref<>> io_refs_;
  /// Serialises admin commands and everything that changes queues at the controller; guards
  /// shut_down_ and the ring_pairs' `live` flags.
  mutable std::mutex admin_mutex_;
  bool shut_down_ = false;
  std::atomic<bool> recovery_claimed_{false};  ///< see claim_recovery()
};

}  // namespace bam::host
