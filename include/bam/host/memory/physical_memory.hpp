// SPDX-License-Identifier: Apache-2.0
// DMA by physical address, for bindings without an IOMMU mapping API (uio_pci_generic, VFIO's
// no-IOMMU mode): the bus address of a locked page is its physical address, read from
// /proc/self/pagemap (root only). 2 MiB hugepages are physically contiguous; 4 KiB pages are
// scattered, so their allocations get per-page bus addresses.
#pragma once

#include <bam/host/memory/pinned_memory.hpp>

#include <string>

namespace bam::host {

/**
 * @brief dma_mapper that reports physical addresses.
 * @note Only as safe as the pages are still: hugetlb pages and locked pages stay put in
 * practice, but the kernel may migrate locked 4 KiB pages (compaction) unless
 * /proc/sys/vm/compact_unevictable_allowed is 0. Prefer VFIO or the kernel module.
 */
class physical_address_mapper final : public dma_mapper {
 public:
  explicit physical_address_mapper(std::string name) : name_(std::move(name)) {}
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  /// @throw bam::system_error when pagemap cannot be read or shows no page frame (not root)
  [[nodiscard]] bus_mapping map_host(std::byte* addr, std::size_t bytes, std::size_t page_bytes) override;

 private:
  std::string name_;
};

}  // namespace bam::host
