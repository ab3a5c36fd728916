// SPDX-License-Identifier: Apache-2.0
// VRAM for memory_kind::device allocations of the real-controller memory resources (CUDA builds).
#include <bam/detail/cuda_try.hpp>
#include <bam/error.hpp>
#include <bam/host/memory/cuda_memory.hpp>
#include <bam/host/memory/gpu_mapping.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace bam::host {

bool gpu_memory_available() noexcept { return cuda_device_present(); }

vram_block allocate_vram(std::size_t bytes, std::size_t alignment) {
  BAM_EXPECTS(gpu_memory_available(), "allocate_vram: no CUDA device is present");
  BAM_EXPECTS(
      bytes > 0 && alignment > 0 && (alignment & (alignment - 1)) == 0,
      "allocate_vram: bad size or alignment (" + std::to_string(bytes) + ", " + std::to_string(alignment) + ")");
  // cudaMalloc aligns to 256 bytes at least; over-allocate to reach larger alignments (the
  // kernel module pins VRAM in 64 KiB GPU pages).
  void* base = nullptr;
  BAM_CUDA_TRY(cudaMalloc(&base, bytes + alignment - 1));
  const auto at = (reinterpret_cast<std::uintptr_t>(base) + alignment - 1) & ~std::uintptr_t(alignment - 1);
  auto* aligned = reinterpret_cast<std::byte*>(at);
  try {
    BAM_CUDA_TRY(cudaMemset(aligned, 0, bytes));
  } catch (...) {
    cudaFree(base);
    throw;
  }
  return vram_block{aligned, bytes, [base] { cudaFree(base); }};
}

}  // namespace bam::host
