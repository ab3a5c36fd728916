// SPDX-License-Identifier: Apache-2.0
// Making host memory and BAR0 reachable from GPU kernels, and VRAM for memory_kind::device.
// CUDA builds implement this in cuda_bar_mapping.cpp (cudaHostRegister) and cuda_vram.cpp; in
// CPU-only builds the "GPU" is the CPU threads standing in for warps (gpu_mapping_cpu.cpp), so a
// device address is the host address and there is no VRAM.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>

namespace bam::host {

/**
 * @brief A host range registered so that GPU kernels can address it. Move-only; unregisters on
 * destruction.
 *
 * For BAR0 (`io_memory` true) this is cudaHostRegister with cudaHostRegisterIoMemory |
 * cudaHostRegisterMapped: GPU threads then store to doorbells directly. For DMA memory it is
 * cudaHostRegisterMapped | cudaHostRegisterPortable. With no GPU present in a CUDA build,
 * device() is null and nothing is registered.
 */
class gpu_host_mapping {
 public:
  gpu_host_mapping() = default;
  /// @throw bam::cuda_error when a GPU is present and the registration fails
  gpu_host_mapping(std::byte* host, std::size_t bytes, bool io_memory);
  gpu_host_mapping(gpu_host_mapping&& o) noexcept
      : host_(std::exchange(o.host_, nullptr)), device_(std::exchange(o.device_, nullptr)) {}
  gpu_host_mapping& operator=(gpu_host_mapping&& o) noexcept {
    std::swap(host_, o.host_);
    std::swap(device_, o.device_);
    return *this;
  }
  gpu_host_mapping(const gpu_host_mapping&) = delete;
  gpu_host_mapping& operator=(const gpu_host_mapping&) = delete;
  ~gpu_host_mapping();

  /// The GPU address of the range's first byte; null when no GPU can reach it.
  [[nodiscard]] std::byte* device() const noexcept { return device_; }

 private:
  std::byte* host_ = nullptr;  ///< registered range (null: nothing to unregister)
  std::byte* device_ = nullptr;
};

/// GPU memory for memory_kind::device allocations.
struct vram_block {
  std::byte* device = nullptr;  ///< aligned as requested
  std::size_t bytes = 0;
  std::function<void()> release;  ///< frees the block
};

/// True when allocate_vram can succeed: a CUDA build with a GPU present.
[[nodiscard]] bool gpu_memory_available() noexcept;

/**
 * @brief Zeroed VRAM of `bytes`, its address aligned to `alignment` (a power of two).
 * @throw bam::cuda_error on failure; bam::invalid_argument when gpu_memory_available() is false
 */
[[nodiscard]] vram_block allocate_vram(std::size_t bytes, std::size_t alignment);

}  // namespace bam::host
