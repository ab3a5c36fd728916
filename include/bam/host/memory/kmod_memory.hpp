// SPDX-License-Identifier: Apache-2.0
// DMA mappings through the bam kernel module (/dev/bamN): host chunks pinned with
// BAM_IOC_PIN_HOST, VRAM with BAM_IOC_PIN_GPU (modules built against NVIDIA's driver source),
// bus addresses from BAM_IOC_GET_MAPPING, released with BAM_IOC_UNPIN.
#pragma once

#include <bam/host/drivers/posix_io.hpp>
#include <bam/host/memory/pinned_memory.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace bam::host {

/// dma_mapper over an open /dev/bamN.
class kmod_dma_mapper final : public dma_mapper {
 public:
  /**
   * @param name binding and device for messages ("kmod /dev/bam0")
   * @param file the open /dev/bamN (shared with the device that opened it)
   * @param gpu_pinning the module offers PIN_GPU (GET_INFO flag BAM_INFO_F_GPU_PIN)
   */
  kmod_dma_mapper(std::string name, std::shared_ptr<unique_fd> file, bool gpu_pinning)
      : name_(std::move(name)), file_(std::move(file)), gpu_pinning_(gpu_pinning) {}
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  [[nodiscard]] bus_mapping map_host(std::byte* addr, std::size_t bytes, std::size_t page_bytes) override;
  /// Pins VRAM for peer-to-peer DMA when the module can; an empty mapping otherwise.
  [[nodiscard]] bus_mapping map_device(std::byte* addr, std::size_t bytes) override;
  /// 64 KiB: the NVIDIA driver's GPU page.
  [[nodiscard]] std::size_t device_alignment() const noexcept override;

 private:
  /// Bus addresses of pin `handle`, coalesced into runs of `run_bytes`; unpins it on failure.
  [[nodiscard]] bus_mapping mapping_of(std::uint64_t handle, std::size_t run_bytes);
  void unpin(std::uint64_t handle) const noexcept;

  std::string name_;
  std::shared_ptr<unique_fd> file_;
  bool gpu_pinning_;
};

}  // namespace bam::host
