// SPDX-License-Identifier: Apache-2.0
// What the guest tests share: the binding under test (from the command line), rebinding a
// controller to the driver that binding needs, and opening it with host::nvme_binding.
#pragma once

#include <bam/host/controller.hpp>
#include <bam/host/drivers/block_io.hpp>
#include <bam/host/nvme_binding.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace bam::guest {

/// The guest's controllers, as tests/nvme_guest/CMakeLists.txt sets them up.
namespace topology {
/// 0000:00:01.0, serial bam0: MDTS 10 (4 MiB), namespace 1 of 512 B blocks, namespace 2 of 4 KiB.
inline constexpr int main_ctrl = 0;
/// 0000:00:02.0, serial bam1: max_ioqpairs=4, MDTS 3 (32 KiB), namespace 1 of 4 KiB blocks.
inline constexpr int limited_ctrl = 1;
inline constexpr std::uint32_t limited_ioqpairs = 4;
inline constexpr std::size_t main_mdts_bytes = std::size_t{4} << 20;
inline constexpr std::size_t limited_mdts_bytes = 32 * 1024;
}  // namespace topology

/// The binding and page policy this run tests (set once by main from the command line).
struct run_config {
  host::binding_kind binding = host::binding_kind::vfio;
  host::page_policy pages = host::page_policy::huge_when_available;
};
run_config& config();

/**
 * @brief Leaves the page allocator with scattered free pages: maps `bytes`, faults them in and
 * unmaps every other page, keeping the rest for the life of the process. 4 KiB DMA pages
 * allocated afterwards are then rarely physically adjacent (a fresh guest hands out runs).
 */
void fragment_physical_memory(std::size_t bytes);

/// PCI address of the guest's controller `index` ("0000:00:0<index+1>.0").
[[nodiscard]] std::string bdf_of(int index);

/**
 * @brief Binds controller `index` to `driver` (driver_override + drivers_probe) and waits for it;
 * loads /bam/bam.ko first when the driver is "bam". Throws bam::error on failure.
 */
void bind(int index, const std::string& driver);

/// The Linux driver the binding needs: vfio-pci, uio_pci_generic or bam.
[[nodiscard]] std::string driver_for(host::binding_kind kind);

/// Binds controller `index` for the configured binding and opens it.
[[nodiscard]] std::unique_ptr<host::nvme_binding> open_binding(int index);

/// Controller options for the run: CPU-driven queues; 64 entries when pages are 4 KiB, so that
/// each ring fits one (physically contiguous) page.
[[nodiscard]] host::controller_options controller_options(std::uint32_t io_queue_pairs = 4);

/// A controller brought up over a binding, owned together (the binding outlives the controller).
struct opened {
  std::unique_ptr<host::nvme_binding> binding;
  std::unique_ptr<host::controller> ctrl;
  /// block_io on I/O queue `queue`. With 4 KiB pages, transfers are capped at 2 MiB: one PRP
  /// list page, the most that scattered pages can hold.
  [[nodiscard]] host::block_io io(std::size_t queue = 0, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  [[nodiscard]] dma_buffer buffer(std::size_t bytes) { return binding->memory().allocate(bytes, memory_kind::host); }
};

/// open_binding(index) + a controller with controller_options(io_queue_pairs).
[[nodiscard]] opened open_controller(int index, std::uint32_t io_queue_pairs = 4);

}  // namespace bam::guest
