// SPDX-License-Identifier: Apache-2.0
#include <bam/host/memory/kmod_memory.hpp>

#include "kmod/uapi/bam_ioctl.h"

#include <bam/error.hpp>

#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <vector>

namespace bam::host {

std::size_t kmod_dma_mapper::device_alignment() const noexcept { return BAM_GPU_PAGE_SIZE; }

bus_mapping kmod_dma_mapper::map_host(std::byte* addr, std::size_t bytes, std::size_t page_bytes) {
  bam_ioc_pin_host pin{};
  pin.vaddr = reinterpret_cast<std::uintptr_t>(addr);
  pin.length = bytes;
  if (::ioctl(file_->get(), BAM_IOC_PIN_HOST, &pin) != 0)
    throw_errno(
        name_,
        "BAM_IOC_PIN_HOST of " + std::to_string(bytes) + " bytes (ENOMEM: see the module's max_pinned_bytes parameter)",
        errno);
  return mapping_of(pin.handle, page_bytes);
}

bus_mapping kmod_dma_mapper::map_device(std::byte* addr, std::size_t bytes) {
  if (!gpu_pinning_) return {};
  bam_ioc_pin_gpu pin{};
  pin.vaddr = reinterpret_cast<std::uintptr_t>(addr);
  pin.length = bytes;
  if (::ioctl(file_->get(), BAM_IOC_PIN_GPU, &pin) != 0)
    throw_errno(name_, "BAM_IOC_PIN_GPU of " + std::to_string(bytes) + " bytes of GPU memory", errno);
  return mapping_of(pin.handle, BAM_GPU_PAGE_SIZE);
}

bus_mapping kmod_dma_mapper::mapping_of(std::uint64_t handle, std::size_t run_bytes) {
  bam_ioc_get_mapping m{};
  m.handle = handle;
  if (::ioctl(file_->get(), BAM_IOC_GET_MAPPING, &m) != 0) {
    const int err = errno;
    unpin(handle);
    throw_errno(name_, "BAM_IOC_GET_MAPPING (size)", err);
  }
  std::vector<std::uint64_t> pages(m.n_pages);
  m.addrs = reinterpret_cast<std::uintptr_t>(pages.data());
  m.capacity = pages.size();
  if (::ioctl(file_->get(), BAM_IOC_GET_MAPPING, &m) != 0 || m.n_copied != pages.size()) {
    const int err = m.n_copied != pages.size() ? EIO : errno;
    unpin(handle);
    throw_errno(name_, "BAM_IOC_GET_MAPPING", err);
  }
  bus_mapping b = coalesce_bus_pages(std::move(pages), m.page_size, std::max<std::size_t>(run_bytes, m.page_size));
  b.unmap = [this, handle] { unpin(handle); };
  return b;
}

void kmod_dma_mapper::unpin(std::uint64_t handle) const noexcept {
  bam_ioc_unpin u{};
  u.handle = handle;
  if (::ioctl(file_->get(), BAM_IOC_UNPIN, &u) != 0)
    std::fprintf(stderr, "bam: %s: BAM_IOC_UNPIN of handle %llu failed: errno %d\n", name_.c_str(),
                 static_cast<unsigned long long>(handle), errno);
}

}  // namespace bam::host
