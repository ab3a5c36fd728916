// SPDX-License-Identifier: Apache-2.0
// memory_resource over the process heap, for CPU-only builds and tests: CPU threads stand in
// for the GPU, so the "device" address is the host address, and the emulated controller uses
// host addresses as bus addresses (an identity IOMMU).
#pragma once

#include <bam/memory.hpp>

namespace bam::host {

class heap_memory final : public memory_resource {
 public:
  /// Both kinds come from the heap; memory_kind::device is only a label here.
  [[nodiscard]] dma_buffer allocate(std::size_t bytes, memory_kind kind,
                                    std::size_t alignment = 4096) override;
  [[nodiscard]] bool has_device_memory() const noexcept override { return false; }
};

}  // namespace bam::host
