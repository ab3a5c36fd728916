// SPDX-License-Identifier: Apache-2.0
// The single place that writes an NVMe doorbell. The same store serves a doorbell in pinned
// host memory (the emulated controller polls it) and a real BAR0 register mapped into the GPU
// (cudaHostRegisterIoMemory) or into a process (mmap of BAR0).
#pragma once

#include <bam/config.hpp>
#include <bam/detail/atomic.hpp>

#include <cstdint>

namespace bam::queues {

/// A doorbell register, passed by value to device code.
struct doorbell_ref {
  std::uint32_t* reg = nullptr;

  /**
   * @brief Writes `value` (a queue index) to the doorbell.
   * @note A system-scope release store: every write the caller made visible to it before the
   * call (queue entries, data buffers), including writes by other threads it acquired, reaches
   * memory before the controller can observe the new value.
   */
  BAM_HD void ring(std::uint32_t value) const {
    detail::system_atomic<std::uint32_t>(*reg).store(value, cuda::std::memory_order_release);
  }
};

}  // namespace bam::queues
