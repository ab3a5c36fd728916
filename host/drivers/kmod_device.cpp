// SPDX-License-Identifier: Apache-2.0
#include <bam/host/drivers/kmod_device.hpp>

#include <bam/error.hpp>
#include <bam/host/memory/kmod_memory.hpp>
#include "kmod/uapi/bam_ioctl.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstdio>

namespace bam::host {

kmod_device::kmod_device(std::string path, kmod_options options) : path_(std::move(path)) {
  file_ = std::make_shared<unique_fd>(open_or_throw(
      path_, O_RDWR, path_, "open the bam kernel module's device (is bam.ko loaded and the controller bound to it?)"));
  bam_ioc_get_info info{};
  if (::ioctl(file_->get(), BAM_IOC_GET_INFO, &info) != 0)
    throw_errno(path_, "BAM_IOC_GET_INFO (is this a bam device?)", errno);
  if (info.abi_major != BAM_IOCTL_ABI_MAJOR)
    throw system_error(path_ + ": the bam module speaks ABI " + std::to_string(info.abi_major) + "." +
                       std::to_string(info.abi_minor) + ", this library ABI " + std::to_string(BAM_IOCTL_ABI_MAJOR) +
                       ".x: rebuild one of them");
  char bdf[16];
  std::snprintf(bdf, sizeof bdf, "%04x:%02x:%02x.%x", info.pci_domain & 0xffff, info.pci_bus & 0xff,
                (info.pci_devfn >> 3) & 0x1f, info.pci_devfn & 7);
  info_ = kmod_info{info.abi_major,
                    info.abi_minor,
                    (info.flags & BAM_INFO_F_GPU_PIN) != 0,
                    std::size_t(info.bar0_len),
                    info.vendor_id,
                    info.device_id,
                    info.class_code,
                    bdf};
  bar_ = mapped_bar(file_->get(), 0, info_.bar0_bytes, path_);
  memory_ = std::make_unique<pinned_memory>(
      std::make_shared<kmod_dma_mapper>("kmod " + path_, file_, info_.gpu_pinning), options.memory);
}

}  // namespace bam::host
