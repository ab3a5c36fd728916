// SPDX-License-Identifier: Apache-2.0
// pinned_memory: the memory_resource of the real-controller bindings. Host allocations are
// carved from chunks of locked memory (2 MiB hugepages when available) that a binding-specific
// dma_mapper makes reachable by the controller (VFIO IOMMU mappings, physical addresses, or the
// bam kernel module's pins); device allocations are VRAM, reachable where the binding can map it.
#pragma once

#include <bam/host/memory/gpu_mapping.hpp>
#include <bam/host/memory/locked_pages.hpp>
#include <bam/memory.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace bam::host {

/// Bus addresses of one mapped range, and how to undo the mapping.
struct bus_mapping {
  std::vector<std::uint64_t> pages;  ///< bus address of each page; one entry when bus-contiguous
  std::size_t page_bytes = 0;        ///< bytes per entry (the whole range when there is one entry)
  std::function<void()> unmap;       ///< undoes the mapping (may be empty)
};

/**
 * @brief The coarsest description of a range from the bus addresses of its `unit_bytes` pages:
 * one entry when the range is bus-contiguous, else one per `run_bytes` (a multiple of
 * unit_bytes) when every run is contiguous, else one per unit.
 */
[[nodiscard]] bus_mapping coalesce_bus_pages(std::vector<std::uint64_t> units, std::size_t unit_bytes,
                                             std::size_t run_bytes);

/// How one binding makes memory reachable by its controller.
class dma_mapper {
 public:
  virtual ~dma_mapper() = default;
  /// Names the binding and device in error messages, e.g. "vfio 0000:01:00.0".
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  /**
   * @brief Maps locked host memory for DMA by the controller.
   * @param addr start of whole pages of `page_bytes`, locked
   * @param bytes a multiple of page_bytes
   * @throw bam::system_error when the mapping fails
   */
  [[nodiscard]] virtual bus_mapping map_host(std::byte* addr, std::size_t bytes, std::size_t page_bytes) = 0;
  /// Maps VRAM for peer-to-peer DMA; an empty mapping (no pages) when the binding cannot.
  [[nodiscard]] virtual bus_mapping map_device(std::byte* addr, std::size_t bytes);
  /// Alignment (of address and size) that map_device needs.
  [[nodiscard]] virtual std::size_t device_alignment() const noexcept { return small_page_bytes; }
};

struct pinned_memory_options {
  page_policy pages = page_policy::huge_when_available;  ///< what host chunks are made of
  std::size_t chunk_bytes = hugepage_bytes;              ///< smaller allocations share chunks of this size
};

/**
 * @brief A memory_resource over a dma_mapper.
 *
 * Host allocations smaller than chunk_bytes are carved, page aligned, from a shared chunk that
 * is mapped once; larger ones get a chunk of their own. A chunk is unmapped and freed when its
 * last allocation is released. Every allocation is zeroed. On a CUDA build with a GPU, chunks
 * are registered with CUDA so kernels reach them (dma_span::device); in CPU-only builds the
 * device address is the host address.
 *
 * memory_kind::device allocations are VRAM when has_device_memory(), bus-reachable when the
 * mapper maps VRAM (the kernel module built with NVIDIA's driver source); otherwise they come
 * from host memory, as with heap_memory, so CPU threads can stand in for the GPU.
 *
 * Thread-safe. Buffers may outlive the resource (chunks keep the mapper alive), not the device
 * whose mapper made them.
 */
class pinned_memory final : public memory_resource {
 public:
  explicit pinned_memory(std::shared_ptr<dma_mapper> mapper, pinned_memory_options options = {});
  ~pinned_memory() override;
  pinned_memory(const pinned_memory&) = delete;
  pinned_memory& operator=(const pinned_memory&) = delete;

  /// @throw bam::system_error when locking or mapping fails; bam::invalid_argument on bad sizes
  [[nodiscard]] dma_buffer allocate(std::size_t bytes, memory_kind kind, std::size_t alignment = 4096) override;
  [[nodiscard]] bool has_device_memory() const noexcept override;
  [[nodiscard]] const pinned_memory_options& options() const noexcept { return options_; }
  [[nodiscard]] dma_mapper& mapper() const noexcept { return *mapper_; }

 private:
  struct chunk;
  [[nodiscard]] std::shared_ptr<chunk> make_chunk(std::size_t bytes);
  [[nodiscard]] dma_buffer allocate_device(std::size_t bytes, std::size_t alignment);

  std::shared_ptr<dma_mapper> mapper_;
  pinned_memory_options options_;
  std::mutex mutex_;
  std::shared_ptr<chunk> open_;  ///< the chunk small allocations are carved from
  std::size_t open_used_ = 0;    ///< bytes of open_ handed out
};

}  // namespace bam::host
