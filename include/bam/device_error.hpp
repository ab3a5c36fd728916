// SPDX-License-Identifier: Apache-2.0
// The first failure of device-side code, with its context, for the host to turn into an
// exception after the kernel (device code never throws).
#pragma once

#include <bam/config.hpp>
#include <bam/detail/atomic.hpp>
#include <bam/status.hpp>

#include <cstdint>

namespace bam {

/// What a device_error record describes. Explicit, because no field value can mean "no
/// command": NVMe opcode 0 is Flush, and queue, namespace and LBA 0 are all valid.
enum class device_error_kind : std::uint8_t {
  none,     ///< nothing recorded: the record is clear
  access,   ///< an element access failed in the cache (index, slot, fill); no NVMe command
            ///< describes it: `range` and `index` (the element) do
  command,  ///< an NVMe command failed: `controller`, `qid`, `cid`, `opcode`, `nsid`, `lba`,
            ///< `n_blocks` describe it, `sct`/`sc` its NVMe status, `index` its page
};

/// What failed, where. `claimed` is 0 until the first failure claims the record.
struct device_error {
  std::uint32_t claimed = 0;
  device_error_kind kind = device_error_kind::none;
  std::uint8_t status = 0;      ///< bam::status
  std::uint8_t sct = 0;         ///< NVMe status code type, for io_error
  std::uint8_t sc = 0;          ///< NVMe status code, for io_error
  std::uint8_t opcode = 0;      ///< NVMe opcode, for I/O failures
  std::uint32_t controller = 0;
  std::uint16_t qid = 0;
  std::uint16_t cid = 0;
  std::uint32_t nsid = 0;
  std::uint32_t range = 0;      ///< array (range id) involved
  std::uint64_t lba = 0;        ///< first LBA of the failed command
  std::uint64_t index = 0;      ///< element index, for out_of_range; page index otherwise
  std::uint32_t n_blocks = 0;
  std::uint32_t count = 0;      ///< failures recorded, the first one described
};

/**
 * @brief Records `e` unless an earlier failure did; counts every failure.
 * @note The first claimer (relaxed CAS on `claimed`, device or system scope) writes the fields;
 * the host reads them after the kernel, which orders them.
 */
template <cuda::thread_scope Scope = cuda::thread_scope_device>
BAM_HD inline void record_error(device_error* slot, const device_error& e) {
  if (slot == nullptr) return;
  detail::atomic<std::uint32_t, Scope>(slot->count).fetch_add(1, cuda::std::memory_order_relaxed);
  std::uint32_t expected = 0;
  if (!detail::atomic<std::uint32_t, Scope>(slot->claimed)
           .compare_exchange_strong(expected, 1, cuda::std::memory_order_relaxed)) {
    return;
  }
  // Only the claimer writes these fields; `claimed` and `count` stay atomic-only.
  slot->kind = e.kind;
  slot->status = e.status;
  slot->sct = e.sct;
  slot->sc = e.sc;
  slot->opcode = e.opcode;
  slot->controller = e.controller;
  slot->qid = e.qid;
  slot->cid = e.cid;
  slot->nsid = e.nsid;
  slot->range = e.range;
  slot->lba = e.lba;
  slot->index = e.index;
  slot->n_blocks = e.n_blocks;
}

}  // namespace bam
