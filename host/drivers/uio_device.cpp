// SPDX-License-Identifier: Apache-2.0
#include <bam/host/drivers/uio_device.hpp>

#include "host/drivers/pci_function.hpp"
#include <bam/error.hpp>
#include <bam/host/drivers/posix_io.hpp>
#include <bam/host/memory/physical_memory.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

namespace bam::host {

uio_device::uio_device(std::string_view bdf, uio_options options) : bdf_(canonical_bdf(bdf)) {
  require_nvme_bound_to(bdf_, "uio_pci_generic");
  const std::string sysfs = pci_sysfs_path(bdf_);
  if (const auto group = link_basename(sysfs + "/iommu_group")) {
    const auto type = read_text("/sys/kernel/iommu_groups/" + *group + "/type");
    if (type && *type != "identity")
      throw system_error(bdf_ + ": the device's IOMMU domain translates addresses (type " + *type +
                         "), so physical addresses would fault: use the vfio binding, or boot with iommu=pt");
  }
  {
    const unique_fd config = open_or_throw(sysfs + "/config", O_RDWR, bdf_, "open the PCI configuration space");
    enable_bus_master(config.get(), 0, bdf_);
  }
  const unique_fd resource = open_or_throw(sysfs + "/resource0", O_RDWR | O_SYNC, bdf_, "open BAR0 (resource0)");
  struct stat st {};
  if (::fstat(resource.get(), &st) != 0) throw_errno(bdf_, "stat resource0", errno);
  bar_ = mapped_bar(resource.get(), 0, std::size_t(st.st_size), bdf_);
  memory_ = std::make_unique<pinned_memory>(std::make_shared<physical_address_mapper>("uio " + bdf_), options.memory);
}

}  // namespace bam::host
