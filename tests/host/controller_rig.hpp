// SPDX-License-Identifier: Apache-2.0
// What the host::controller tests share: an emulated controller over heap memory behind an
// emulated IOMMU with the real driver brought up on it (CPU-driven queue pairs), and data
// buffers with their PRPs.
#pragma once

#include <bam/host/controller.hpp>
#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/memory/heap_memory.hpp>
#include "queues/prp.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace bam::test {

inline constexpr std::uint64_t seconds = 1'000'000'000ull;

/// heap → emulated IOMMU → emulated controller, and the real driver on top.
struct rig {
  rig(std::vector<std::shared_ptr<host::namespace_store>> ns, host::emulated_controller::options eo,
      host::controller_options co)
      : emu(heap, iommu, std::move(ns), eo) {
    co.driver = host::io_driver::cpu;
    ctrl = std::make_unique<host::controller>(emu.bar(), dma, co);
  }
  host::heap_memory heap;
  host::emulated_iommu iommu;
  host::iommu_memory dma{heap, iommu};
  host::emulated_controller emu;
  std::unique_ptr<host::controller> ctrl;
};

/// Two workers, short spinning (tests share two cores with the emulator).
inline host::emulated_controller::options emu_options(std::uint16_t queues = 8, std::uint8_t mdts = 5) {
  host::emulated_controller::options o;
  o.n_workers = 2;
  o.max_io_queues = queues;
  o.mdts = mdts;
  o.idle_spin_ns = 5'000;
  return o;
}

/// A data buffer with its PRPs built for one transfer of `bytes`.
struct transfer {
  transfer(memory_resource& dma, std::size_t bytes, std::size_t page)
      : data(dma.allocate(bytes, memory_kind::host)),
        list(dma.allocate(std::max<std::size_t>(queues::prp_list_bytes(0, bytes, page), page), memory_kind::host)) {
    prp = queues::build_prps([&](std::size_t o) { return data.bus_at(o); }, bytes, page,
                             reinterpret_cast<std::uint64_t*>(list.host()), list.bus_at(0));
  }
  dma_buffer data, list;
  queues::prp_pair prp;
};

}  // namespace bam::test
