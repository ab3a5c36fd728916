// SPDX-License-Identifier: Apache-2.0
// Internal to the emulated controller: the state its threads share (queue tables, namespaces,
// CSTS) and the ownership rules that let them share it without locks on the I/O path.
#pragma once

#include <bam/config.hpp>
#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/nvme/command.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/nvme/registers.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace bam::host::detail {

/**
 * @brief Counters with one writer and any number of readers.
 * @note The owner updates with relaxed load + store (no read-modify-write); readers get a
 *       recent, not necessarily consistent, snapshot.
 */
struct io_counters {
  std::atomic<std::uint64_t> commands{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> dropped{0};

  void add(std::uint64_t n_bytes, bool error, bool drop) noexcept {
    bump(commands, 1);
    if (n_bytes != 0) bump(bytes, n_bytes);
    if (error) bump(errors, 1);
    if (drop) bump(dropped, 1);
  }
  /** @brief A command counted as successful completes with an error after all (Abort). */
  void add_error() noexcept { bump(errors, 1); }
  void reset() noexcept {
    for (auto* c : {&commands, &bytes, &errors, &dropped}) c->store(0, std::memory_order_relaxed);
  }
  [[nodiscard]] io_stats snapshot() const noexcept {
    return {commands.load(std::memory_order_relaxed), bytes.load(std::memory_order_relaxed),
            errors.load(std::memory_order_relaxed), dropped.load(std::memory_order_relaxed)};
  }

 private:
  static void bump(std::atomic<std::uint64_t>& c, std::uint64_t n) noexcept {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

/// Life of a queue-table slot. free → active: the admin thread, after configuring the slot
/// (release). active → deleting: the admin thread (release). deleting → free: the serving
/// thread once it holds no reference to the queue (release); the admin thread waits for it.
enum class slot_state : std::uint32_t { free, active, deleting };

/**
 * @brief A slot's state and serving worker in one atomic word, so that a thread scanning the
 *        table learns whether a queue is its own without reading any other field of the slot
 *        (which the admin thread may be rewriting once the slot is free).
 */
class slot_status {
 public:
  struct value {
    slot_state state = slot_state::free;
    unsigned worker = 0;  ///< serving I/O worker (unused for queue 0)
  };
  [[nodiscard]] value load(std::memory_order order) const noexcept {
    const std::uint32_t w = word_.load(order);
    return {slot_state(w & 0xffu), w >> 8};
  }
  [[nodiscard]] slot_state state(std::memory_order order) const noexcept {
    return load(order).state;
  }
  void store(value v, std::memory_order order) noexcept {
    word_.store(std::uint32_t(v.state) | (v.worker << 8), order);
  }

 private:
  std::atomic<std::uint32_t> word_{0};
};

/**
 * @brief A completion queue. Configuration fields are written by the admin thread while the
 *        slot is free and read only by the thread that serves the queue (its worker, or the
 *        admin thread for queue 0), as are the posting fields.
 */
struct alignas(cache_line_bytes) cq_slot {
  slot_status status;
  // Configuration.
  std::uint64_t base = 0;   ///< bus address of entry 0
  std::uint32_t size = 0;   ///< entries
  std::uint16_t qid = 0;
  std::uint32_t* head_doorbell = nullptr;
  std::uint32_t attached_sqs = 0;  ///< admin thread only
  // Posting state.
  std::uint32_t tail = 0;   ///< next entry to write
  std::uint32_t head = 0;   ///< head doorbell value last read
  bool phase = true;        ///< phase tag of the current pass
  std::uint32_t last_invalid_head = ~0u;  ///< last out-of-range head seen (counted once)
};

/**
 * @brief A submission queue; same ownership rules as cq_slot. The serving thread consumes
 *        entries in order and keeps at most `size` commands in flight (consumed, not posted).
 */
struct alignas(cache_line_bytes) sq_slot {
  slot_status status;
  // Configuration.
  std::uint64_t base = 0;
  std::uint32_t size = 0;
  std::uint16_t qid = 0;
  cq_slot* cq = nullptr;
  std::uint32_t page_bytes = 4096;  ///< CC.MPS when the queue was created
  std::uint32_t* tail_doorbell = nullptr;
  // Serving state.
  std::uint32_t head = 0;
  std::uint32_t in_flight = 0;
  bool broken = false;  ///< its memory became unreachable: CFS was set, no more fetches
  std::uint32_t last_invalid_tail = ~0u;
  io_counters counters;  ///< since creation (reset by the admin thread before activation)
};

/// Status halfword (phase 0) of a generic error; DNR except for transient kinds.
constexpr std::uint16_t generic_error(std::uint8_t sc) {
  const bool transient = sc == nvme::generic_status::data_transfer_error ||
                         sc == nvme::generic_status::internal_error;
  return nvme::status_field::make(nvme::status_type::generic, sc, !transient).raw;
}
/// Status halfword of a command-specific error (always DNR).
constexpr std::uint16_t specific_error(std::uint8_t sc) {
  return nvme::status_field::make(nvme::status_type::command_specific, sc, true).raw;
}

/// What a command handler decided.
struct command_result {
  std::uint16_t status = 0;         ///< status field without the phase bit
  std::uint32_t dw0 = 0;            ///< command-specific result
  std::uint64_t not_before_ns = 0;  ///< earliest posting time (now_ns clock); 0 = at once
  std::uint64_t bytes = 0;          ///< data bytes moved
};

/// Executes one command of a queue kind; called only by the queue's serving thread.
class command_handler {
 public:
  virtual ~command_handler() = default;
  /** @brief Hints that `cmd` will execute soon (start fetching what it touches). */
  virtual void prefetch(const nvme::command& cmd) noexcept { (void)cmd; }
  [[nodiscard]] virtual command_result execute(const nvme::command& cmd, const sq_slot& sq) = 0;
};

/**
 * @brief An Abort on its way from the admin thread to the worker that serves the SQ (whose
 *        timers hold the delayed completions).
 * @note One at a time: only the admin thread posts, and it waits for the answer. It stores
 *       `answer` = 0, then `posted` (release), then announces; the serving worker claims the
 *       request with a CAS of `posted` back to 0 (so exactly one worker answers it, once) and
 *       release-stores `answer`, which the admin thread acquire-loads.
 */
struct abort_request {
  static constexpr std::uint32_t aborted = 1;
  static constexpr std::uint32_t not_aborted = 2;
  /// 0: none; otherwise 1 << 32 | sqid << 16 | cid.
  std::atomic<std::uint64_t> posted{0};
  std::atomic<std::uint32_t> answer{0};  ///< 0 until answered, then aborted or not_aborted

  [[nodiscard]] static constexpr std::uint64_t encode(std::uint16_t sqid, std::uint16_t cid) noexcept {
    return (std::uint64_t{1} << 32) | (std::uint64_t{sqid} << 16) | cid;
  }
  [[nodiscard]] static constexpr std::uint16_t sqid_of(std::uint64_t v) noexcept { return std::uint16_t(v >> 16); }
  [[nodiscard]] static constexpr std::uint16_t cid_of(std::uint64_t v) noexcept { return std::uint16_t(v); }
};

/**
 * @brief Everything the controller's threads share.
 *
 * Mutable shared state is limited to: queue slots (ownership above), `generation` (bumped by
 * the admin thread after any slot changes, so workers rescan), the Abort hand-over, CSTS
 * (read-modify-written under `csts_mutex_`), and counters.
 */
struct controller_core {
  controller_core(const emulated_controller_options& opts, bar_view bar, emulated_iommu& iommu,
                  std::vector<std::shared_ptr<namespace_store>> namespaces);

  /// Namespace `nsid` or nullptr.
  [[nodiscard]] namespace_store* ns(std::uint32_t nsid) const noexcept {
    return nsid >= 1 && nsid <= namespaces.size() ? namespaces[nsid - 1].get() : nullptr;
  }
  /** @brief Host address of queue `qid`'s SQ tail (is_cq false) or CQ head doorbell. */
  [[nodiscard]] std::uint32_t* doorbell(std::uint16_t qid, bool is_cq) const noexcept {
    const std::uint32_t stride = options.doorbell_stride;
    return reinterpret_cast<std::uint32_t*>(
        bar.host() + (is_cq ? nvme::cq_head_doorbell_offset(qid, stride)
                            : nvme::sq_tail_doorbell_offset(qid, stride)));
  }
  /** @brief Tells workers that queue slots changed. @note Release increment, then wake. */
  void announce() noexcept {
    generation.fetch_add(1, std::memory_order_release);
    generation.notify_all();
  }
  /** @brief Read-modify-writes CSTS. @note Serialised by a mutex; rare. */
  template <class Fn>
  void update_csts(Fn&& fn) {
    std::lock_guard lock(csts_mutex_);
    nvme::csts_register csts{bar.read32(nvme::reg::csts)};
    fn(csts);
    bar.write32(nvme::reg::csts, csts.raw);
  }
  /**
   * @brief Status of a queue of `entries` entries at bus address `base`: PRP Offset Invalid
   *        unless page aligned, Data Transfer Error unless every page is mapped, else 0.
   */
  [[nodiscard]] std::uint16_t check_queue_memory(std::uint64_t base, std::uint32_t entries,
                                                 std::uint32_t entry_bytes,
                                                 std::uint32_t page_bytes) const noexcept;
  /** @brief Sets CSTS.CFS and records why (a string literal). */
  void set_fatal(const char* why) noexcept;

  const emulated_controller_options options;
  const bar_view bar;
  emulated_iommu& iommu;
  const std::vector<std::shared_ptr<namespace_store>> namespaces;
  const std::shared_ptr<fault_plan> faults;
  const std::unique_ptr<timing_model> timing;  ///< null: no timing model
  const std::uint32_t max_transfer_bytes;      ///< MDTS in bytes
  const std::unique_ptr<sq_slot[]> sqs;        ///< index = qid, 0..max_io_queues
  const std::unique_ptr<cq_slot[]> cqs;
  std::atomic<std::uint64_t> generation{0};
  std::atomic<bool> stopping{false};
  abort_request abort;
  std::atomic<std::uint64_t> invalid_doorbells{0};
  std::atomic<const char*> fatal_reason{nullptr};

 private:
  std::mutex csts_mutex_;
};

}  // namespace bam::host::detail
