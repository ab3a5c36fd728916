// SPDX-License-Identifier: Apache-2.0
#include <bam/host/memory/vfio_memory.hpp>

#include <bam/error.hpp>

#include <linux/vfio.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <iterator>

namespace bam::host {

iova_allocator::iova_allocator(const std::vector<iova_range>& usable, std::uint64_t floor) {
  for (const iova_range& r : usable) {
    if (r.last < floor || r.last < r.first) continue;
    const std::uint64_t first = std::max(r.first, floor);
    free(first, r.last - first + 1);
  }
}

std::optional<std::uint64_t> iova_allocator::allocate(std::uint64_t bytes, std::uint64_t alignment) {
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const std::uint64_t start = it->first;
    const std::uint64_t end = start + it->second;  // exclusive
    const std::uint64_t at = (start + alignment - 1) & ~(alignment - 1);
    if (at < start || at > end || end - at < bytes) continue;
    free_.erase(it);
    if (at > start) free_.emplace(start, at - start);
    if (at + bytes < end) free_.emplace(at + bytes, end - at - bytes);
    return at;
  }
  return std::nullopt;
}

void iova_allocator::free(std::uint64_t iova, std::uint64_t bytes) {
  if (bytes == 0) return;
  auto next = free_.lower_bound(iova);
  if (next != free_.end() && iova + bytes == next->first) {
    bytes += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == iova) {
      prev->second += bytes;
      return;
    }
  }
  free_.emplace(iova, bytes);
}

std::uint64_t iova_allocator::free_bytes() const {
  std::uint64_t n = 0;
  for (const auto& [start, size] : free_) n += size;
  return n;
}

vfio_dma_mapper::vfio_dma_mapper(std::string name, std::shared_ptr<unique_fd> container,
                                 const std::vector<iova_range>& usable, std::uint64_t min_page)
    : name_(std::move(name)), container_(std::move(container)), min_page_(min_page), iovas_(usable) {}

bus_mapping vfio_dma_mapper::map_host(std::byte* addr, std::size_t bytes, std::size_t page_bytes) {
  const std::uint64_t alignment = std::max<std::uint64_t>(page_bytes, min_page_);
  BAM_EXPECTS(bytes % min_page_ == 0 && reinterpret_cast<std::uintptr_t>(addr) % min_page_ == 0,
              name_ + ": DMA memory must be aligned to the IOMMU page size " + std::to_string(min_page_));
  std::uint64_t iova = 0;
  {
    const std::lock_guard lock(mutex_);
    const auto got = iovas_.allocate(bytes, alignment);
    if (!got)
      throw system_error(name_ + ": no IOVA space left for " + std::to_string(bytes) + " bytes (" +
                         std::to_string(iovas_.free_bytes()) + " bytes free)");
    iova = *got;
  }
  vfio_iommu_type1_dma_map map{};
  map.argsz = sizeof map;
  map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
  map.vaddr = reinterpret_cast<std::uintptr_t>(addr);
  map.iova = iova;
  map.size = bytes;
  if (::ioctl(container_->get(), VFIO_IOMMU_MAP_DMA, &map) != 0) {
    const int err = errno;
    const std::lock_guard lock(mutex_);
    iovas_.free(iova, bytes);
    throw_errno(name_,
                "VFIO_IOMMU_MAP_DMA of " + std::to_string(bytes) +
                    " bytes (ENOMEM: raise RLIMIT_MEMLOCK; "
                    "ENOSPC: too many mappings, see vfio_iommu_type1 dma_entry_limit)",
                err);
  }
  return bus_mapping{{iova}, bytes, [this, iova, bytes] { unmap(iova, bytes); }};
}

void vfio_dma_mapper::unmap(std::uint64_t iova, std::uint64_t bytes) {
  vfio_iommu_type1_dma_unmap unmap{};
  unmap.argsz = sizeof unmap;
  unmap.iova = iova;
  unmap.size = bytes;
  if (::ioctl(container_->get(), VFIO_IOMMU_UNMAP_DMA, &unmap) != 0) {
    // Release paths cannot throw. The mapping is gone with the container at the latest, and
    // the IOVA range stays reserved so nothing else is mapped over it.
    std::fprintf(stderr, "bam: %s: VFIO_IOMMU_UNMAP_DMA of iova 0x%llx failed: errno %d\n", name_.c_str(),
                 static_cast<unsigned long long>(iova), errno);
    return;
  }
  const std::lock_guard lock(mutex_);
  iovas_.free(iova, bytes);
}

}  // namespace bam::host
