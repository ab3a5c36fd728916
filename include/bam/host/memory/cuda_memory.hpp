// SPDX-License-Identifier: Apache-2.0
// memory_resource over the CUDA runtime: memory_kind::host is pinned host memory mapped into the
// GPU (the host-pinned tier: queue rings, PRP lists and data frames an emulated or real
// controller reaches without peer-to-peer DMA); memory_kind::device is VRAM. Bus addresses of
// pinned memory are its host virtual addresses, which is what the emulated controller's IOMMU
// expects; a real controller needs a resource that maps memory through VFIO or the kernel module.
#pragma once

#include <bam/memory.hpp>

namespace bam::host {

class cuda_memory final : public memory_resource {
 public:
  /// Uses the current CUDA device; throws bam::cuda_error when there is none.
  cuda_memory();
  [[nodiscard]] dma_buffer allocate(std::size_t bytes, memory_kind kind,
                                    std::size_t alignment = 4096) override;
  [[nodiscard]] bool has_device_memory() const noexcept override { return true; }
};

/// True when the CUDA runtime sees at least one device.
[[nodiscard]] bool cuda_device_present() noexcept;

}  // namespace bam::host
