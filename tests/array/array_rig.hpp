// SPDX-License-Identifier: Apache-2.0
// Test support for bam::array on the CPU: emulated controllers driven by CPU threads, a
// bam::page_cache over them, and a team of threads.
#pragma once

#include <bam/host/controller.hpp>
#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/memory/heap_memory.hpp>
#include <bam/page_cache.hpp>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace bam::test {

/// One emulated controller and its driver, CPU-driven.
struct drive {
  drive(memory_resource& heap, host::emulated_iommu& iommu, memory_resource& dma,
        std::vector<std::shared_ptr<host::namespace_store>> ns, std::uint32_t index) {
    host::emulated_controller::options eo;
    eo.n_workers = 1;
    eo.max_io_queues = 4;
    eo.idle_spin_ns = 5'000;
    emu = std::make_unique<host::emulated_controller>(heap, iommu, std::move(ns), eo);
    host::controller_options co;
    co.io_queue_pairs = 4;
    co.queue_depth = 16;
    co.driver = host::io_driver::cpu;
    co.index = index;
    ctrl = std::make_unique<host::controller>(emu->bar(), dma, co);
  }
  std::unique_ptr<host::emulated_controller> emu;
  std::unique_ptr<host::controller> ctrl;
};

struct rig {
  explicit rig(std::vector<std::vector<std::shared_ptr<host::namespace_store>>> per_drive, page_cache_options o) {
    for (std::uint32_t i = 0; i < per_drive.size(); ++i)
      drives.push_back(std::make_unique<drive>(heap, iommu, dma, per_drive[i], i));
    std::vector<host::controller*> ctrls;
    for (auto& d : drives) ctrls.push_back(d->ctrl.get());
    cache = std::make_unique<page_cache>(ctrls, dma, o);
  }
  host::heap_memory heap;
  host::emulated_iommu iommu;
  host::iommu_memory dma{heap, iommu};
  std::vector<std::unique_ptr<drive>> drives;
  std::unique_ptr<page_cache> cache;
};

inline page_cache_options small_cache(std::size_t page, std::size_t slots) {
  page_cache_options o;
  o.page_bytes = page;
  o.cache_bytes = page * slots;
  o.timeout = std::chrono::milliseconds(20'000);
  return o;
}

template <class Fn>
void on_threads(unsigned n, Fn fn) {
  std::vector<std::thread> team;
  for (unsigned t = 0; t < n; ++t) team.emplace_back(fn, t);
  for (auto& t : team) t.join();
}

}  // namespace bam::test
