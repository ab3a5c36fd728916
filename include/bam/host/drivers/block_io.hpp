// SPDX-License-Identifier: Apache-2.0
// block_io: reads and writes from host threads through one I/O queue pair of a controller —
// PRPs (with lists up to MDTS) built into per-command-id list pages, bounded waits, and
// failures turned into exceptions that name the controller, queue, command and LBA. The CLI,
// the guest tests and host-side tools use it; GPU code drives queue_pair_ref itself.
#pragma once

#include <bam/host/controller.hpp>
#include <bam/memory.hpp>
#include <bam/nvme/command.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bam::host {

struct block_io_options {
  std::chrono::milliseconds timeout{10'000};  ///< per step: getting an SQ slot, and the completion
  /// Largest transfer of one command; 0 means the controller's MDTS (2 MiB when it has none).
  std::size_t max_transfer_bytes = 0;
};

/**
 * @brief Host-side I/O over one queue pair; safe to use from several threads at once.
 *
 * The controller must have been created with io_driver::cpu (in CPU-only builds either driver
 * works: the GPU side is the CPU). Each command id owns a PRP list area, so concurrent callers
 * never share list memory.
 *
 * @note Progress (queue_pair_ref's rule): a command id (ticket % depth) stays owned from
 * submit() until wait() returns. Either one thread uses the pair and keeps fewer than depth
 * commands in flight, or several threads share it and each waits for its command before it
 * submits the next. A thread holding unwaited commands while others lap the queue can leave
 * it and them waiting on each other's command ids until the time limit.
 */
class block_io {
 public:
  /**
   * @param ctrl the controller (outlives this object)
   * @param memory DMA memory for the PRP lists (normally the binding's)
   * @param queue index into ctrl.io_queues()
   * @throw bam::invalid_argument when `queue` does not exist or the limit exceeds MDTS
   */
  block_io(controller& ctrl, memory_resource& memory, std::size_t queue, block_io_options options = {});

  /// Largest transfer one command may carry.
  [[nodiscard]] std::size_t max_transfer_bytes() const noexcept { return max_bytes_; }
  [[nodiscard]] const queues::queue_pair_ref<>& queue() const noexcept { return queue_; }

  /**
   * @brief Submits a read or write of `n_blocks` at `lba` of namespace `nsid`, to or from
   * `buffer` from byte `offset` (dword aligned) on.
   * @return a ticket for wait()
   * @throw bam::invalid_argument on a bad namespace, a transfer beyond max_transfer_bytes() or
   * outside the buffer; bam::timeout_error when no SQ slot frees up in time; bam::error when
   * the queue pair failed earlier
   */
  [[nodiscard]] std::uint64_t submit(nvme::io_opcode op, std::uint32_t nsid, std::uint64_t lba, std::uint32_t n_blocks,
                                     const dma_buffer& buffer, std::size_t offset = 0);
  /**
   * @brief Waits for a submitted command.
   * @throw bam::nvme_error with the command's context when it completed with an error status;
   * bam::timeout_error when it did not complete within the time limit (the pair is then failed)
   */
  void wait(std::uint64_t ticket);

  /// submit() + wait() of a read.
  void read(std::uint32_t nsid, std::uint64_t lba, std::uint32_t n_blocks, const dma_buffer& buffer,
            std::size_t offset = 0) {
    wait(submit(nvme::io_opcode::read, nsid, lba, n_blocks, buffer, offset));
  }
  /// submit() + wait() of a write.
  void write(std::uint32_t nsid, std::uint64_t lba, std::uint32_t n_blocks, const dma_buffer& buffer,
             std::size_t offset = 0) {
    wait(submit(nvme::io_opcode::write, nsid, lba, n_blocks, buffer, offset));
  }
  /// Flush of namespace `nsid` (volatile write cache to media).
  void flush(std::uint32_t nsid);

 private:
  /// The command a command id carries, for error messages.
  struct pending {
    nvme::io_opcode op{};
    std::uint32_t nsid = 0;
    std::uint64_t lba = 0;
    std::uint32_t n_blocks = 0;
  };
  [[nodiscard]] std::uint64_t submit_command(nvme::command cmd, const pending& what, std::size_t bytes,
                                             const dma_buffer* buffer, std::size_t offset);
  [[nodiscard]] std::string describe(const pending& p) const;

  controller& ctrl_;
  queues::queue_pair_ref<> queue_;
  block_io_options options_;
  std::size_t max_bytes_ = 0;
  std::size_t list_stride_ = 0;  ///< PRP list bytes per command id
  dma_buffer lists_;
  std::vector<pending> pending_;  ///< per command id
};

}  // namespace bam::host
