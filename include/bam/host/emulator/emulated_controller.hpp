// SPDX-License-Identifier: Apache-2.0
// bam::host::emulated_controller: an NVMe controller made of host threads. It presents a real
// NVMe register file and doorbells in BAR memory and serves real NVMe submission/completion
// queues in DMA memory, so the same driver code runs against it and against an SSD.
#pragma once

#include <bam/host/drivers/bar.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/emulator/fault_plan.hpp>
#include <bam/host/emulator/namespace_store.hpp>
#include <bam/host/emulator/timing_model.hpp>
#include <bam/memory.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bam::host {

namespace detail {
struct controller_core;
class admin_thread;
class io_worker;
}  // namespace detail

/// Activity of one submission queue, or of the whole controller.
struct io_stats {
  std::uint64_t commands = 0;  ///< commands consumed from submission queues
  std::uint64_t bytes = 0;     ///< data bytes moved by commands that succeeded
  std::uint64_t errors = 0;    ///< completions posted with a non-success status
  std::uint64_t dropped = 0;   ///< commands a fault rule dropped (never completed)
};

/// Construction options of an emulated_controller (see docs/emulated-controller.md).
struct emulated_controller_options {
  std::uint32_t n_workers = 2;             ///< I/O threads; queue pairs are spread over them
  std::uint16_t max_io_queues = 64;        ///< I/O SQs and CQs each (Number of Queues limit)
  std::uint32_t max_queue_entries = 4096;  ///< CAP.MQES + 1
  std::uint32_t doorbell_stride = 4;       ///< CAP.DSTRD: doorbells (4 << n) bytes apart;
                                           ///< 4 gives each doorbell its own 64-byte line
  std::uint8_t mdts = 5;                   ///< max transfer: 2^mdts 4 KiB pages (1..16)
  std::uint8_t ready_timeout = 20;         ///< CAP.TO in 500 ms units
  std::string serial = "BAMEMU0000000001";  ///< Identify SN (at most 20 characters)
  std::string model = "bam emulated NVMe controller";  ///< Identify MN (at most 40)
  std::shared_ptr<fault_plan> faults;       ///< shared rules; null: an empty plan of its own
  std::optional<timing_model::options> timing;  ///< SSD model; none: complete at once
  std::uint32_t idle_spin_ns = 20'000;  ///< idle threads spin this long before sleeping
  std::uint32_t idle_sleep_ns = 2'000;  ///< then sleep at least this long between polls,
  std::uint32_t idle_sleep_max_ns = 100'000;  ///< growing with the idle time up to this
};

/**
 * @brief An emulated NVMe 1.4 controller serving namespaces 1..N from namespace_stores.
 *
 * A driver talks to it exactly as to PCIe hardware: it reads CAP through bar(), writes
 * AQA/ASQ/ACQ and CC.EN, waits for CSTS.RDY, submits admin and I/O commands by writing
 * 64-byte entries into its queue memory and ringing doorbells, and polls completions. Every
 * address the driver hands over is a bus address translated by the emulated_iommu, so queue
 * and data memory must come from an iommu_memory over that IOMMU.
 *
 * Threads: one admin thread (the CC/CSTS state machine and the admin queue) and n_workers I/O
 * threads; I/O SQs bound to CQ `c` are served by worker (c - 1) % n_workers, so each SQ is
 * consumed in order and each CQ has one writer. Constructing starts the threads; destroying
 * stops them (the driver should disable the controller first, but need not).
 */
class emulated_controller {
 public:
  using options = emulated_controller_options;

  /**
   * @param bar_memory where the register file and doorbells live (CUDA pinned memory in GPU
   *        builds, so kernels can ring doorbells; heap in CPU tests)
   * @param iommu translates every queue and PRP address; must outlive the controller
   * @param namespaces namespace ids 1..N in order
   * @throw bam::invalid_argument on bad options or a null namespace.
   */
  emulated_controller(memory_resource& bar_memory, emulated_iommu& iommu,
                      std::vector<std::shared_ptr<namespace_store>> namespaces,
                      options opts = {});
  ~emulated_controller();
  emulated_controller(const emulated_controller&) = delete;
  emulated_controller& operator=(const emulated_controller&) = delete;

  /** @brief BAR0: registers at their specified offsets, doorbells from 0x1000. */
  [[nodiscard]] bar_view bar() const noexcept;
  [[nodiscard]] const options& config() const noexcept;
  /** @brief The fault rules every command is checked against (shared with options::faults). */
  [[nodiscard]] fault_plan& faults() const noexcept;
  /** @brief Namespace `nsid` (1-based). @throw bam::invalid_argument if there is none. */
  [[nodiscard]] namespace_store& store(std::uint32_t nsid) const;

  /** @brief Totals over every queue since construction, admin queue included. */
  [[nodiscard]] io_stats stats() const noexcept;
  /** @brief Activity of submission queue `qid` since its creation, if it exists now. */
  [[nodiscard]] std::optional<io_stats> queue_stats(std::uint16_t qid) const noexcept;
  /** @brief Doorbell writes the controller ignored (a tail or head beyond the queue). */
  [[nodiscard]] std::uint64_t invalid_doorbell_writes() const noexcept;
  /** @brief Why CSTS.CFS was set since the last reset, or nullptr. */
  [[nodiscard]] const char* fatal_reason() const noexcept;

 private:
  dma_buffer bar_memory_;
  std::unique_ptr<detail::controller_core> core_;
  std::vector<std::unique_ptr<detail::io_worker>> workers_;
  std::unique_ptr<detail::admin_thread> admin_;
};

}  // namespace bam::host
