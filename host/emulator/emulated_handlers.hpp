// SPDX-License-Identifier: Apache-2.0
// Internal to the emulated controller: what admin and NVM I/O commands do.
#pragma once

#include "host/emulator/emulated_state.hpp"

#include <bam/nvme/command.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace bam::host::detail {

/**
 * @brief Admin command set: Identify, Create/Delete I/O SQ/CQ, Set/Get Features (Number of
 *        Queues), Abort. Runs on the admin thread only; owns the I/O queue tables' free and
 *        active transitions and waits for workers to release deleted queues (and to answer
 *        Aborts of commands they hold).
 */
class admin_handler final : public command_handler {
 public:
  explicit admin_handler(controller_core& core);
  [[nodiscard]] command_result execute(const nvme::command& cmd, const sq_slot& sq) override;

  /** @brief The CC value the admin thread last read (queue entry sizes are checked on it). */
  void set_cc(nvme::cc_register cc) noexcept { cc_ = cc; }
  /** @brief Controller reset: deletes every I/O queue and forgets negotiated queue counts. */
  void reset();

 private:
  command_result identify(const nvme::command& cmd, const sq_slot& sq);
  command_result create_cq(const nvme::command& cmd, const sq_slot& sq);
  command_result create_sq(const nvme::command& cmd, const sq_slot& sq);
  command_result delete_sq(const nvme::command& cmd);
  command_result delete_cq(const nvme::command& cmd);
  command_result set_features(const nvme::command& cmd);
  command_result get_features(const nvme::command& cmd) const;
  /// Hands the Abort to the worker serving the SQ and waits for its answer.
  command_result abort(const nvme::command& cmd);
  /// Copies `data` to the command's PRPs.
  command_result transfer_to_host(const nvme::command& cmd, const sq_slot& sq,
                                  std::span<const std::byte> data);
  /// active → deleting for each slot, then waits until their workers released them all.
  void retire(std::span<slot_status* const> slots);

  controller_core& core_;
  nvme::cc_register cc_{};
  std::uint32_t granted_sqs_;  ///< Number of Queues: I/O SQs allowed
  std::uint32_t granted_cqs_;
  std::uint32_t live_io_queues_ = 0;  ///< I/O SQs + CQs that exist
  std::vector<std::span<std::byte>> segments_;
};

/**
 * @brief NVM command set: Read, Write, Flush. One per I/O worker; never allocates after
 *        construction.
 */
class io_handler final : public command_handler {
 public:
  explicit io_handler(controller_core& core);
  /** @brief Read/Write: asks the namespace store to prefetch the blocks. */
  void prefetch(const nvme::command& cmd) noexcept override;
  [[nodiscard]] command_result execute(const nvme::command& cmd, const sq_slot& sq) override;

 private:
  /// Read (Byte = std::byte: data flows to host memory) or Write (Byte = const std::byte).
  template <class Byte>
  command_result transfer(const nvme::command& cmd, const sq_slot& sq,
                          std::vector<std::span<Byte>>& segments);
  command_result flush(const nvme::command& cmd);
  /// Checks namespace, MDTS, LBA range and data-pointer kind; on success `ns` is set.
  std::uint16_t check_transfer(const nvme::command& cmd, namespace_store*& ns) const noexcept;

  controller_core& core_;
  std::vector<std::span<std::byte>> read_segments_;
  std::vector<std::span<const std::byte>> write_segments_;
};

}  // namespace bam::host::detail
