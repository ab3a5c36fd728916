// SPDX-License-Identifier: Apache-2.0
// emulated_system: the embedded default in one object — DMA memory (CUDA pinned + VRAM when a
// GPU is present, the heap otherwise) behind an emulated IOMMU, N emulated NVMe controllers, and
// the driver (host::controller) brought up on each. Applications, tests and benchmarks build
// a page_cache on top of it with two lines.
#pragma once

#include <bam/host/controller.hpp>
#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/emulator/namespace_store.hpp>
#include <bam/memory.hpp>

#include <memory>
#include <vector>

namespace bam::host {

struct emulated_system_options {
  /// Namespaces of each controller (one inner vector per controller; nsid = position + 1).
  std::vector<std::vector<std::shared_ptr<namespace_store>>> controllers;
  std::uint32_t workers_per_controller = 8;  ///< emulator threads of each controller
  std::uint32_t queue_pairs = 64;            ///< I/O queue pairs per controller
  std::uint32_t queue_depth = 1024;          ///< entries per queue
  std::uint8_t mdts = 9;                     ///< 2^mdts 4 KiB pages per command (9: 2 MiB)
  bool use_gpu = true;                       ///< drive the queues from the GPU when one is present
  emulated_controller::options emulator{};   ///< other emulator options (faults, timing model)
};

class emulated_system {
 public:
  /// @throw bam::invalid_argument when no controller or namespace is given
  explicit emulated_system(emulated_system_options options);
  ~emulated_system();
  emulated_system(const emulated_system&) = delete;
  emulated_system& operator=(const emulated_system&) = delete;

  /// True when the queues are driven by GPU threads (a GPU is present and use_gpu was set).
  [[nodiscard]] bool on_gpu() const noexcept { return on_gpu_; }
  /// DMA memory (frames, rings; memory_kind::device for VRAM) registered with the IOMMU.
  [[nodiscard]] memory_resource& memory() noexcept { return *dma_; }
  /// The drivers, for page_cache and for direct queue use.
  [[nodiscard]] std::vector<controller*> controllers() const;
  [[nodiscard]] controller& driver(std::size_t i) const { return *drivers_.at(i); }
  [[nodiscard]] emulated_controller& emulator(std::size_t i) const { return *emulators_.at(i); }

 private:
  bool on_gpu_ = false;
  std::unique_ptr<memory_resource> base_;
  std::unique_ptr<emulated_iommu> iommu_;
  std::unique_ptr<memory_resource> dma_;
  std::vector<std::unique_ptr<emulated_controller>> emulators_;
  std::vector<std::unique_ptr<controller>> drivers_;
};

}  // namespace bam::host
