// SPDX-License-Identifier: Apache-2.0
#include <bam/host/memory/cuda_memory.hpp>

#include <bam/detail/cuda_try.hpp>
#include <bam/error.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace bam::host {

cuda_memory::cuda_memory() {
  int device = 0;
  BAM_CUDA_TRY(cudaGetDevice(&device));
  BAM_CUDA_TRY(cudaFree(nullptr));  // create the context now, not inside the first allocation
}

dma_buffer cuda_memory::allocate(std::size_t bytes, memory_kind kind, std::size_t alignment) {
  BAM_EXPECTS(bytes > 0, "cuda_memory::allocate: zero bytes requested");
  BAM_EXPECTS((alignment & (alignment - 1)) == 0 && alignment <= 4096,
              "cuda_memory::allocate: alignment must be a power of two of at most 4096 (CUDA "
              "allocations are page aligned), got " + std::to_string(alignment));
  if (kind == memory_kind::host) {
    void* h = nullptr;
    BAM_CUDA_TRY(cudaHostAlloc(&h, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    void* d = nullptr;
    BAM_CUDA_TRY(cudaHostGetDevicePointer(&d, h, 0));
    std::memset(h, 0, bytes);
    auto* hb = static_cast<std::byte*>(h);
    return dma_buffer(dma_span{hb, static_cast<std::byte*>(d), bytes},
                      {reinterpret_cast<std::uint64_t>(hb)}, bytes,
                      [](dma_span s) { cudaFreeHost(s.host); });
  }
  void* d = nullptr;
  BAM_CUDA_TRY(cudaMalloc(&d, bytes));
  BAM_CUDA_TRY(cudaMemset(d, 0, bytes));
  return dma_buffer(dma_span{nullptr, static_cast<std::byte*>(d), bytes}, {}, 0,
                    [](dma_span s) { cudaFree(s.device); });
}

bool cuda_device_present() noexcept {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return ok;
}

}  // namespace bam::host
