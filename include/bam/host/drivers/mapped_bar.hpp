// SPDX-License-Identifier: Apache-2.0
// mapped_bar: BAR0 of a controller mapped into the process from a file that exposes it (a VFIO
// device fd, sysfs's resource0, /dev/bamN) and, on CUDA builds, registered as I/O memory so GPU
// threads reach its doorbells.
#pragma once

#include <bam/host/drivers/bar.hpp>
#include <bam/host/memory/gpu_mapping.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace bam::host {

/// Owner of one BAR0 mapping. Move-only; unregisters and unmaps on destruction.
class mapped_bar {
 public:
  mapped_bar() = default;
  /**
   * @brief Maps `bytes` of `fd` from `offset` on (shared, read-write) and registers them with
   * the GPU.
   * @throw bam::system_error naming `who` when the mapping fails (too small to be NVMe, or mmap)
   */
  mapped_bar(int fd, std::uint64_t offset, std::size_t bytes, std::string_view who);
  mapped_bar(mapped_bar&& o) noexcept
      : host_(std::exchange(o.host_, nullptr)), bytes_(std::exchange(o.bytes_, 0)), gpu_(std::move(o.gpu_)) {}
  mapped_bar& operator=(mapped_bar&& o) noexcept {
    std::swap(host_, o.host_);
    std::swap(bytes_, o.bytes_);
    std::swap(gpu_, o.gpu_);
    return *this;
  }
  mapped_bar(const mapped_bar&) = delete;
  mapped_bar& operator=(const mapped_bar&) = delete;
  ~mapped_bar();

  /// The CPU mapping, and the GPU's (null when no GPU reaches it).
  [[nodiscard]] bar_view view() const noexcept { return bar_view(host_, gpu_.device(), bytes_); }

 private:
  std::byte* host_ = nullptr;
  std::size_t bytes_ = 0;
  gpu_host_mapping gpu_;
};

}  // namespace bam::host
