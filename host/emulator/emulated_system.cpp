// SPDX-License-Identifier: Apache-2.0
#include <bam/host/emulator/emulated_system.hpp>

#include <bam/host/memory/heap_memory.hpp>
#if BAM_WITH_CUDA_RUNTIME
#include <bam/host/memory/cuda_memory.hpp>
#endif

#include <bam/error.hpp>

#include <string>

namespace bam::host {

emulated_system::emulated_system(emulated_system_options o) {
  BAM_EXPECTS(!o.controllers.empty(), "emulated_system: no controllers given");
#if BAM_WITH_CUDA_RUNTIME
  on_gpu_ = o.use_gpu && cuda_device_present();
  if (on_gpu_) base_ = std::make_unique<cuda_memory>();
#endif
  if (!on_gpu_) base_ = std::make_unique<heap_memory>();
  iommu_ = std::make_unique<emulated_iommu>();
  dma_ = std::make_unique<iommu_memory>(*base_, *iommu_);
  for (std::size_t i = 0; i < o.controllers.size(); ++i) {
    BAM_EXPECTS(!o.controllers[i].empty(), "emulated_system: controller " + std::to_string(i) + " has no namespace");
    emulated_controller::options eo = o.emulator;
    eo.n_workers = o.workers_per_controller;
    eo.max_io_queues = std::uint16_t(o.queue_pairs);
    eo.max_queue_entries = std::max<std::uint32_t>(eo.max_queue_entries, o.queue_depth);
    eo.mdts = o.mdts;
    eo.serial = "BAMEMU" + std::to_string(i);
    emulators_.push_back(std::make_unique<emulated_controller>(*base_, *iommu_, o.controllers[i], eo));
    controller_options co;
    co.io_queue_pairs = o.queue_pairs;
    co.queue_depth = o.queue_depth;
    co.driver = on_gpu_ ? io_driver::gpu : io_driver::cpu;
    co.index = std::uint32_t(i);
    drivers_.push_back(std::make_unique<controller>(emulators_.back()->bar(), *dma_, co));
  }
}

emulated_system::~emulated_system() {
  drivers_.clear();  // shut the drivers down while their controllers still answer
  emulators_.clear();
}

std::vector<controller*> emulated_system::controllers() const {
  std::vector<controller*> out;
  for (const auto& d : drivers_) out.push_back(d.get());
  return out;
}

}  // namespace bam::host
