// SPDX-License-Identifier: Apache-2.0
// uio_device: an NVMe controller bound to uio_pci_generic, for machines without VFIO. BAR0 is
// sysfs's resource0 mapped into the process; DMA uses physical addresses (physical_memory.hpp),
// so the device must not sit behind a translating IOMMU. Root only.
#pragma once

#include <bam/host/drivers/bar.hpp>
#include <bam/host/drivers/mapped_bar.hpp>
#include <bam/host/memory/pinned_memory.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace bam::host {

struct uio_options {
  pinned_memory_options memory{};  ///< hugepages keep rings physically contiguous
};

/**
 * @brief Owner of one PCI function bound to uio_pci_generic.
 *
 * The constructor checks the binding and that the function's IOMMU domain (if any) passes
 * physical addresses through, enables memory space and bus mastering through sysfs's config
 * file (uio_pci_generic never sets bus mastering), and maps resource0.
 * Lifetime: as vfio_device.
 */
class uio_device {
 public:
  /// @throw bam::system_error naming the PCI address, the step and errno's text
  explicit uio_device(std::string_view bdf, uio_options options = {});
  uio_device(const uio_device&) = delete;
  uio_device& operator=(const uio_device&) = delete;

  [[nodiscard]] const std::string& bdf() const noexcept { return bdf_; }
  [[nodiscard]] bar_view bar() const noexcept { return bar_.view(); }
  /// DMA memory with physical bus addresses.
  [[nodiscard]] pinned_memory& memory() noexcept { return *memory_; }

 private:
  std::string bdf_;
  mapped_bar bar_;
  std::unique_ptr<pinned_memory> memory_;
};

}  // namespace bam::host
