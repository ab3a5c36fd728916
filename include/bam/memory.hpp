// SPDX-License-Identifier: Apache-2.0
// DMA-able memory: the one interface through which bam allocates queue rings, PRP lists and
// data frames. Implementations live in host/ (heap for CPU tests, CUDA pinned/device memory,
// VFIO- and kernel-module-mapped memory for real controllers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace bam {

/// Where an allocation lives.
enum class memory_kind {
  host,    ///< host memory reachable by the controller (pinned, or plain heap in CPU tests)
  device,  ///< GPU memory (VRAM); reachable by a controller only through peer-to-peer DMA
};

/// One allocation seen from its three users: the CPU, the GPU, and the controller (bus).
/// A pointer is null where that side cannot reach the memory.
struct dma_span {
  std::byte* host = nullptr;    ///< CPU address
  std::byte* device = nullptr;  ///< address for code running as a GPU kernel (in CPU-only
                                ///< builds, the CPU threads standing in for warps: == host)
  std::size_t bytes = 0;
};

/**
 * @brief A move-only owner of DMA-able memory and its bus addresses.
 *
 * Bus addresses are given per page of `bus_page_bytes` (the IOMMU/pinning granularity): the
 * controller sees page `i` at `bus_pages[i]`. Memory that is bus-contiguous has one entry
 * and `bus_page_bytes == bytes` rounded up. An empty list means the memory is not reachable
 * by any controller (e.g. VRAM without peer-to-peer support).
 */
class dma_buffer {
 public:
  dma_buffer() = default;
  dma_buffer(dma_span span, std::vector<std::uint64_t> bus_pages, std::size_t bus_page_bytes,
             std::function<void(dma_span)> release)
      : span_(span), bus_pages_(std::move(bus_pages)), bus_page_bytes_(bus_page_bytes),
        release_(std::move(release)) {}
  dma_buffer(dma_buffer&& o) noexcept { swap(o); }
  dma_buffer& operator=(dma_buffer&& o) noexcept {
    dma_buffer tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  dma_buffer(const dma_buffer&) = delete;
  dma_buffer& operator=(const dma_buffer&) = delete;
  ~dma_buffer() {
    if (release_) release_(span_);
  }

  [[nodiscard]] const dma_span& span() const noexcept { return span_; }
  [[nodiscard]] std::byte* host() const noexcept { return span_.host; }
  [[nodiscard]] std::byte* device() const noexcept { return span_.device; }
  [[nodiscard]] std::size_t size() const noexcept { return span_.bytes; }
  [[nodiscard]] bool bus_reachable() const noexcept { return !bus_pages_.empty(); }

  /// Bus address of the byte at `offset`. Precondition: bus_reachable() and offset < size().
  [[nodiscard]] std::uint64_t bus_at(std::size_t offset) const noexcept {
    if (bus_pages_.size() == 1) return bus_pages_[0] + offset;
    return bus_pages_[offset / bus_page_bytes_] + offset % bus_page_bytes_;
  }
  /// Bytes from `offset` to the end of its bus-contiguous run.
  [[nodiscard]] std::size_t bus_contiguous_from(std::size_t offset) const noexcept {
    if (bus_pages_.size() == 1) return span_.bytes - offset;
    return bus_page_bytes_ - offset % bus_page_bytes_;
  }

 private:
  void swap(dma_buffer& o) noexcept {
    std::swap(span_, o.span_);
    std::swap(bus_pages_, o.bus_pages_);
    std::swap(bus_page_bytes_, o.bus_page_bytes_);
    std::swap(release_, o.release_);
  }

  dma_span span_{};
  std::vector<std::uint64_t> bus_pages_;
  std::size_t bus_page_bytes_ = 0;
  std::function<void(dma_span)> release_;
};

/// Allocates DMA-able memory. Throws bam::error when it cannot.
class memory_resource {
 public:
  virtual ~memory_resource() = default;
  /// `bytes` of zeroed memory of `kind`, aligned to `alignment` (a power of two, at least 4096
  /// when the memory is handed to a controller).
  [[nodiscard]] virtual dma_buffer allocate(std::size_t bytes, memory_kind kind,
                                            std::size_t alignment = 4096) = 0;
  /// True when allocate(.., memory_kind::device, ..) returns GPU memory.
  [[nodiscard]] virtual bool has_device_memory() const noexcept = 0;
};

}  // namespace bam
