// SPDX-License-Identifier: Apache-2.0
#include <bam/host/nvme_binding.hpp>

#include <bam/error.hpp>

namespace bam::host {

const char* to_string(binding_kind k) noexcept {
  switch (k) {
    case binding_kind::vfio:
      return "vfio";
    case binding_kind::uio:
      return "uio";
    case binding_kind::kmod:
      return "kmod";
  }
  return "unknown";
}

binding_kind parse_binding_kind(std::string_view name) {
  for (const binding_kind k : {binding_kind::vfio, binding_kind::uio, binding_kind::kmod})
    if (name == to_string(k)) return k;
  throw invalid_argument("unknown NVMe binding '" + std::string(name) + "' (expected vfio, uio or kmod)");
}

nvme_binding::nvme_binding(binding_kind kind, std::string_view address, binding_options options) : kind_(kind) {
  switch (kind) {
    case binding_kind::vfio:
      vfio_ = std::make_unique<vfio_device>(address, vfio_options{options.no_iommu, true, options.memory});
      name_ = std::string(options.no_iommu ? "vfio-noiommu " : "vfio ") + vfio_->bdf();
      break;
    case binding_kind::uio:
      BAM_EXPECTS(!options.no_iommu, "nvme_binding: no-IOMMU mode applies to the vfio binding only");
      uio_ = std::make_unique<uio_device>(address, uio_options{options.memory});
      name_ = "uio " + uio_->bdf();
      break;
    case binding_kind::kmod:
      BAM_EXPECTS(!options.no_iommu, "nvme_binding: no-IOMMU mode applies to the vfio binding only");
      kmod_ = std::make_unique<kmod_device>(std::string(address), kmod_options{options.memory});
      name_ = "kmod " + kmod_->path() + " (" + kmod_->info().bdf + ")";
      break;
  }
}

nvme_binding::~nvme_binding() = default;

bar_view nvme_binding::bar() const noexcept { return vfio_ ? vfio_->bar() : uio_ ? uio_->bar() : kmod_->bar(); }

pinned_memory& nvme_binding::memory() noexcept {
  return vfio_ ? vfio_->memory() : uio_ ? uio_->memory() : kmod_->memory();
}

}  // namespace bam::host
