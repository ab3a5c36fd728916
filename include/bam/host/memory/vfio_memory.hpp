// SPDX-License-Identifier: Apache-2.0
// DMA mappings through a VFIO type1 container: pinned_memory chunks mapped with
// VFIO_IOMMU_MAP_DMA at I/O virtual addresses (IOVAs) bam chooses, so every chunk is
// bus-contiguous whatever pages back it; unmapped with VFIO_IOMMU_UNMAP_DMA on release.
#pragma once

#include <bam/host/drivers/posix_io.hpp>
#include <bam/host/memory/pinned_memory.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace bam::host {

/// A closed range [first, last] of I/O virtual addresses.
struct iova_range {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};

/**
 * @brief First-fit allocator of IOVA space within the ranges the IOMMU accepts.
 *
 * Addresses below `floor` are never handed out (IOVA 0 and the first MiB look like null or
 * legacy addresses to some devices). Not thread-safe: vfio_dma_mapper serialises calls.
 */
class iova_allocator {
 public:
  explicit iova_allocator(const std::vector<iova_range>& usable, std::uint64_t floor = std::uint64_t{1} << 20);
  /// `bytes` of IOVA space aligned to `alignment` (a power of two); nullopt when none is left.
  [[nodiscard]] std::optional<std::uint64_t> allocate(std::uint64_t bytes, std::uint64_t alignment);
  /// Returns [iova, iova + bytes), merging it with free neighbours.
  void free(std::uint64_t iova, std::uint64_t bytes);
  /// Bytes still free, for tests and messages.
  [[nodiscard]] std::uint64_t free_bytes() const;

 private:
  std::map<std::uint64_t, std::uint64_t> free_;  ///< start → size of each free run
};

/// dma_mapper over a VFIO container with a type1 IOMMU.
class vfio_dma_mapper final : public dma_mapper {
 public:
  /**
   * @param name binding and device for messages ("vfio 0000:01:00.0")
   * @param container the container fd (shared with the device that set it up)
   * @param usable IOVA ranges the IOMMU accepts (VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE)
   * @param min_page smallest IOMMU page size (lowest bit of iova_pgsizes)
   */
  vfio_dma_mapper(std::string name, std::shared_ptr<unique_fd> container, const std::vector<iova_range>& usable,
                  std::uint64_t min_page);
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  /// Maps [addr, addr + bytes) at a fresh IOVA, aligned like the pages (2 MiB for hugepages).
  [[nodiscard]] bus_mapping map_host(std::byte* addr, std::size_t bytes, std::size_t page_bytes) override;

 private:
  void unmap(std::uint64_t iova, std::uint64_t bytes);

  std::string name_;
  std::shared_ptr<unique_fd> container_;
  std::uint64_t min_page_;
  std::mutex mutex_;
  iova_allocator iovas_;
};

}  // namespace bam::host
