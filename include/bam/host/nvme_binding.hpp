// SPDX-License-Identifier: Apache-2.0
// nvme_binding: one real NVMe controller opened through any of bam's three user-space bindings
// (VFIO, uio_pci_generic, the bam kernel module), chosen at run time — what tools and tests use
// to say "--vfio 0000:01:00.0" or "--kmod /dev/bam0" and get a BAR0 and DMA memory.
#pragma once

#include <bam/host/drivers/bar.hpp>
#include <bam/host/drivers/kmod_device.hpp>
#include <bam/host/drivers/uio_device.hpp>
#include <bam/host/drivers/vfio_device.hpp>
#include <bam/host/memory/pinned_memory.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace bam::host {

enum class binding_kind {
  vfio,  ///< vfio-pci + IOMMU (type1): the recommended binding
  uio,   ///< uio_pci_generic + physical addresses: for machines without VFIO
  kmod,  ///< the bam kernel module (/dev/bamN): host pinning, and VRAM with NVIDIA's P2P API
};

/// "vfio", "uio" or "kmod".
[[nodiscard]] const char* to_string(binding_kind k) noexcept;
/// @throw bam::invalid_argument for any other name
[[nodiscard]] binding_kind parse_binding_kind(std::string_view name);

struct binding_options {
  pinned_memory_options memory{};
  bool no_iommu = false;  ///< vfio only: VFIO's no-IOMMU mode (a warning is printed)
};

/// One opened controller; a host::controller is brought up from bar() and memory().
class nvme_binding {
 public:
  /**
   * @param kind the binding
   * @param address a PCI address (vfio, uio) or a device path such as /dev/bam0 (kmod)
   * @throw bam::system_error naming the device, the step and errno's text
   */
  nvme_binding(binding_kind kind, std::string_view address, binding_options options = {});
  ~nvme_binding();
  nvme_binding(const nvme_binding&) = delete;
  nvme_binding& operator=(const nvme_binding&) = delete;

  [[nodiscard]] binding_kind kind() const noexcept { return kind_; }
  /// "vfio 0000:01:00.0", "kmod /dev/bam0 (0000:01:00.0)", ...
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] bar_view bar() const noexcept;
  [[nodiscard]] pinned_memory& memory() noexcept;

 private:
  binding_kind kind_;
  std::string name_;
  std::unique_ptr<vfio_device> vfio_;
  std::unique_ptr<uio_device> uio_;
  std::unique_ptr<kmod_device> kmod_;
};

}  // namespace bam::host
