// SPDX-License-Identifier: Apache-2.0
#include <bam/host/drivers/vfio_device.hpp>

#include "host/drivers/pci_function.hpp"
#include <bam/error.hpp>
#include <bam/host/memory/physical_memory.hpp>
#include <bam/host/memory/vfio_memory.hpp>

#include <fcntl.h>
#include <linux/vfio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace bam::host {

namespace {

/// IOVA ranges assumed when the kernel reports none (before Linux 5.4): below the x86 MSI
/// window and up to 39 bits, the narrowest address width of Intel IOMMUs.
std::vector<iova_range> default_iova_ranges() { return {{0, 0xfedfffff}, {0xfef00000, (std::uint64_t{1} << 39) - 1}}; }

/// Valid IOVA ranges and the smallest IOMMU page of a type1 container.
std::pair<std::vector<iova_range>, std::uint64_t> iommu_info(int container, const std::string& who) {
  std::vector<std::uint64_t> buf(sizeof(vfio_iommu_type1_info) / 8 + 1);
  auto* info = reinterpret_cast<vfio_iommu_type1_info*>(buf.data());
  info->argsz = sizeof(vfio_iommu_type1_info);
  if (::ioctl(container, VFIO_IOMMU_GET_INFO, info) != 0) throw_errno(who, "VFIO_IOMMU_GET_INFO", errno);
  if (info->argsz > sizeof(vfio_iommu_type1_info)) {  // capabilities follow: ask again with room for them
    const std::uint32_t argsz = info->argsz;
    buf.assign(argsz / 8 + 1, 0);
    info = reinterpret_cast<vfio_iommu_type1_info*>(buf.data());
    info->argsz = argsz;
    if (::ioctl(container, VFIO_IOMMU_GET_INFO, info) != 0)
      throw_errno(who, "VFIO_IOMMU_GET_INFO (capabilities)", errno);
  }
  const std::uint64_t pgsizes = (info->flags & VFIO_IOMMU_INFO_PGSIZES) != 0 ? info->iova_pgsizes : 4096;
  const std::uint64_t min_page = pgsizes & (~pgsizes + 1);
  std::vector<iova_range> ranges;
  if ((info->flags & VFIO_IOMMU_INFO_CAPS) != 0) {
    const auto* base = reinterpret_cast<const std::byte*>(info);
    for (std::uint32_t at = info->cap_offset; at != 0 && at + sizeof(vfio_info_cap_header) <= info->argsz;) {
      const auto* header = reinterpret_cast<const vfio_info_cap_header*>(base + at);
      if (header->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
        const auto* cap = reinterpret_cast<const vfio_iommu_type1_info_cap_iova_range*>(header);
        for (std::uint32_t i = 0; i < cap->nr_iovas; ++i)
          ranges.push_back({cap->iova_ranges[i].start, cap->iova_ranges[i].end});
      }
      at = header->next;
    }
  }
  if (ranges.empty()) ranges = default_iova_ranges();
  return {ranges, min_page == 0 ? 4096 : min_page};
}

vfio_region_info region_info(int device, std::uint32_t index, const std::string& who, const char* what) {
  vfio_region_info r{};
  r.argsz = sizeof r;
  r.index = index;
  if (::ioctl(device, VFIO_DEVICE_GET_REGION_INFO, &r) != 0)
    throw_errno(who, std::string("VFIO_DEVICE_GET_REGION_INFO (") + what + ")", errno);
  return r;
}

}  // namespace

vfio_device::vfio_device(std::string_view bdf, vfio_options options)
    : bdf_(canonical_bdf(bdf)), options_(std::move(options)) {
  require_nvme_bound_to(bdf_, "vfio-pci");
  if (options_.no_iommu)
    std::fprintf(stderr,
                 "bam: WARNING: %s: VFIO no-IOMMU mode: nothing confines the controller's DMA; it can read and "
                 "write all of memory. Use only on a machine you own, for testing.\n",
                 bdf_.c_str());
  open_group();
  set_iommu();
  open_device();
  map_bar0();
}

void vfio_device::open_group() {
  const auto group = link_basename(pci_sysfs_path(bdf_) + "/iommu_group");
  if (!group)
    throw system_error(bdf_ +
                       ": no IOMMU group: turn the IOMMU on (intel_iommu=on or amd_iommu=on on the kernel "
                       "command line), or load vfio with enable_unsafe_noiommu_mode=1 for no-IOMMU mode");
  const std::string iommu_path = "/dev/vfio/" + *group;
  const std::string noiommu_path = "/dev/vfio/noiommu-" + *group;
  const bool is_noiommu_group = ::access(noiommu_path.c_str(), F_OK) == 0;
  if (is_noiommu_group && !options_.no_iommu)
    throw system_error(bdf_ + ": IOMMU group " + *group + " is a no-IOMMU group (" + noiommu_path +
                       "): the kernel has no IOMMU for this device; ask for no-IOMMU mode explicitly (--no-iommu) "
                       "to accept unconfined DMA");
  if (!is_noiommu_group && options_.no_iommu)
    throw system_error(bdf_ + ": no-IOMMU mode asked for, but IOMMU group " + *group +
                       " is an IOMMU group; drop the no-IOMMU option");
  group_ = open_or_throw(options_.no_iommu ? noiommu_path : iommu_path, O_RDWR, bdf_,
                         "open the VFIO group (is another process using it?)");

  container_ = std::make_shared<unique_fd>(open_or_throw("/dev/vfio/vfio", O_RDWR, bdf_, "open the VFIO container"));
  if (::ioctl(container_->get(), VFIO_GET_API_VERSION) != VFIO_API_VERSION)
    throw system_error(bdf_ + ": the kernel's VFIO API version is not " + std::to_string(VFIO_API_VERSION));

  vfio_group_status status{};
  status.argsz = sizeof status;
  if (::ioctl(group_.get(), VFIO_GROUP_GET_STATUS, &status) != 0) throw_errno(bdf_, "VFIO_GROUP_GET_STATUS", errno);
  if ((status.flags & VFIO_GROUP_FLAGS_VIABLE) == 0)
    throw system_error(bdf_ + ": IOMMU group " + *group +
                       " is not viable: bind every device in /sys/kernel/iommu_groups/" + *group +
                       "/devices to vfio-pci, or unbind it from its driver");
  int fd = container_->get();
  if (::ioctl(group_.get(), VFIO_GROUP_SET_CONTAINER, &fd) != 0) throw_errno(bdf_, "VFIO_GROUP_SET_CONTAINER", errno);
}

void vfio_device::set_iommu() {
  const int container = container_->get();
  std::shared_ptr<dma_mapper> mapper;
  if (options_.no_iommu) {
    if (::ioctl(container, VFIO_CHECK_EXTENSION, VFIO_NOIOMMU_IOMMU) <= 0)
      throw system_error(bdf_ + ": the VFIO container does not offer no-IOMMU mode");
    if (::ioctl(container, VFIO_SET_IOMMU, VFIO_NOIOMMU_IOMMU) != 0)
      throw_errno(bdf_, "VFIO_SET_IOMMU (no-IOMMU)", errno);
    mapper = std::make_shared<physical_address_mapper>("vfio-noiommu " + bdf_);
  } else {
    int type = VFIO_TYPE1v2_IOMMU;
    if (::ioctl(container, VFIO_CHECK_EXTENSION, type) <= 0) type = VFIO_TYPE1_IOMMU;
    if (::ioctl(container, VFIO_CHECK_EXTENSION, type) <= 0)
      throw system_error(bdf_ + ": the VFIO container offers no type1 IOMMU (is vfio_iommu_type1 loaded?)");
    if (::ioctl(container, VFIO_SET_IOMMU, type) != 0) throw_errno(bdf_, "VFIO_SET_IOMMU (type1)", errno);
    auto [ranges, min_page] = iommu_info(container, bdf_);
    mapper = std::make_shared<vfio_dma_mapper>("vfio " + bdf_, container_, ranges, min_page);
  }
  memory_ = std::make_unique<pinned_memory>(std::move(mapper), options_.memory);
}

void vfio_device::open_device() {
  const int fd = ::ioctl(group_.get(), VFIO_GROUP_GET_DEVICE_FD, bdf_.c_str());
  if (fd < 0) throw_errno(bdf_, "VFIO_GROUP_GET_DEVICE_FD", errno);
  device_.reset(fd);
  vfio_device_info info{};
  info.argsz = sizeof info;
  if (::ioctl(fd, VFIO_DEVICE_GET_INFO, &info) != 0) throw_errno(bdf_, "VFIO_DEVICE_GET_INFO", errno);
  if ((info.flags & VFIO_DEVICE_FLAGS_PCI) == 0 || info.num_regions <= VFIO_PCI_CONFIG_REGION_INDEX)
    throw system_error(bdf_ + ": VFIO does not describe this device as a PCI function");
  // A reset clears bus mastering, so it comes first.
  if (options_.reset && (info.flags & VFIO_DEVICE_FLAGS_RESET) != 0) {
    if (::ioctl(fd, VFIO_DEVICE_RESET) != 0) throw_errno(bdf_, "VFIO_DEVICE_RESET", errno);
  }
  const vfio_region_info config = region_info(fd, VFIO_PCI_CONFIG_REGION_INDEX, bdf_, "config space");
  enable_bus_master(fd, config.offset, bdf_);
}

void vfio_device::map_bar0() {
  const vfio_region_info bar = region_info(device_.get(), VFIO_PCI_BAR0_REGION_INDEX, bdf_, "BAR0");
  if ((bar.flags & VFIO_REGION_INFO_FLAG_MMAP) == 0)
    throw system_error(bdf_ + ": VFIO does not allow BAR0 to be mapped (no VFIO_REGION_INFO_FLAG_MMAP)");
  bar_ = mapped_bar(device_.get(), bar.offset, bar.size, bdf_);
}

}  // namespace bam::host
