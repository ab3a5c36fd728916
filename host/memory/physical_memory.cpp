// SPDX-License-Identifier: Apache-2.0
#include <bam/host/memory/physical_memory.hpp>

#include <bam/host/drivers/posix_io.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace bam::host {

bus_mapping physical_address_mapper::map_host(std::byte* addr, std::size_t bytes, std::size_t page_bytes) {
  const unique_fd pagemap = open_or_throw("/proc/self/pagemap", O_RDONLY, name_, "read physical addresses");
  constexpr std::uint64_t present = std::uint64_t{1} << 63;
  constexpr std::uint64_t pfn_mask = (std::uint64_t{1} << 55) - 1;
  std::vector<std::uint64_t> pages;
  for (std::size_t off = 0; off < bytes; off += page_bytes) {
    const auto va = reinterpret_cast<std::uintptr_t>(addr + off);
    std::uint64_t entry = 0;
    if (::pread(pagemap.get(), &entry, sizeof entry, off_t(va / small_page_bytes * sizeof entry)) != sizeof entry)
      throw_errno(name_, "read /proc/self/pagemap", errno);
    if ((entry & present) == 0) throw system_error(name_ + ": a locked DMA page is not present in /proc/self/pagemap");
    if ((entry & pfn_mask) == 0)
      throw system_error(name_ +
                         ": /proc/self/pagemap shows no page frame numbers: physical addresses need root "
                         "(CAP_SYS_ADMIN)");
    pages.push_back((entry & pfn_mask) * small_page_bytes + va % small_page_bytes);
  }
  return coalesce_bus_pages(std::move(pages), page_bytes, page_bytes);
}

}  // namespace bam::host
