// SPDX-License-Identifier: Apache-2.0
// vfio_device: an NVMe controller opened from user space through VFIO (vfio-pci + the type1
// IOMMU driver): its BAR0 mapped into the process (and into the GPU on CUDA builds) and DMA
// memory mapped through the IOMMU. host::controller brings it up from bar() and memory().
#pragma once

#include <bam/host/drivers/bar.hpp>
#include <bam/host/drivers/mapped_bar.hpp>
#include <bam/host/drivers/posix_io.hpp>
#include <bam/host/memory/pinned_memory.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace bam::host {

struct vfio_options {
  /// Use VFIO's no-IOMMU mode (/dev/vfio/noiommu-N, physical addresses): the controller can then
  /// DMA anywhere in memory. Only when asked for; a warning goes to stderr.
  bool no_iommu = false;
  /// Reset the function (VFIO_DEVICE_RESET) when it supports a reset, before enabling it.
  bool reset = true;
  pinned_memory_options memory{};  ///< what DMA memory is made of
};

/**
 * @brief Owner of one PCI function opened through VFIO.
 *
 * Opening: the function must be bound to vfio-pci and be in a viable IOMMU group (every device
 * of the group bound to vfio-pci or to no driver). The constructor opens the group, attaches it
 * to a new container with the type1 IOMMU (type1v2 when offered), gets the device fd, resets
 * the function when supported, maps BAR0 and enables memory space and bus mastering.
 *
 * Lifetime: a controller using bar() and memory() must be destroyed before this object;
 * buffers from memory() must be released before it too.
 */
class vfio_device {
 public:
  /// @throw bam::system_error naming the PCI address, the step and errno's text
  explicit vfio_device(std::string_view bdf, vfio_options options = {});
  vfio_device(const vfio_device&) = delete;
  vfio_device& operator=(const vfio_device&) = delete;

  [[nodiscard]] const std::string& bdf() const noexcept { return bdf_; }
  /// BAR0: CPU mapping, and the GPU mapping (null when no GPU can reach it).
  [[nodiscard]] bar_view bar() const noexcept { return bar_.view(); }
  /// DMA memory mapped for this controller (IOVAs through the IOMMU; physical in no-IOMMU mode).
  [[nodiscard]] pinned_memory& memory() noexcept { return *memory_; }
  [[nodiscard]] bool no_iommu() const noexcept { return options_.no_iommu; }

 private:
  void open_group();
  void set_iommu();
  void open_device();
  void map_bar0();

  std::string bdf_;
  vfio_options options_;
  std::shared_ptr<unique_fd> container_;
  unique_fd group_;
  unique_fd device_;
  mapped_bar bar_;
  std::unique_ptr<pinned_memory> memory_;  ///< declared last: released first
};

}  // namespace bam::host
