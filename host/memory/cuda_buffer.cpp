// SPDX-License-Identifier: Apache-2.0
// The CUDA runtime calls behind bam::host::cuda_buffer (CUDA builds).
#include <bam/detail/cuda_try.hpp>
#include <bam/host/memory/cuda_buffer.hpp>

#include <cuda_runtime_api.h>

#include <cstring>

namespace bam::detail {

void* cuda_buffer_allocate(std::size_t bytes, host::cuda_allocation where) {
  void* p = nullptr;
  switch (where) {
    case host::cuda_allocation::vram: BAM_CUDA_TRY(cudaMalloc(&p, bytes)); break;
    case host::cuda_allocation::managed: BAM_CUDA_TRY(cudaMallocManaged(&p, bytes)); break;
    case host::cuda_allocation::pinned: BAM_CUDA_TRY(cudaHostAlloc(&p, bytes, cudaHostAllocMapped)); break;
  }
  return p;
}

void cuda_buffer_free(void* p, host::cuda_allocation where) noexcept {
  (void)(where == host::cuda_allocation::pinned ? cudaFreeHost(p) : cudaFree(p));
}

void cuda_buffer_zero(void* p, std::size_t bytes, host::cuda_allocation where) {
  if (where == host::cuda_allocation::pinned) {
    std::memset(p, 0, bytes);
    return;
  }
  BAM_CUDA_TRY(cudaMemset(p, 0, bytes));
}

void cuda_buffer_copy(void* dst, const void* src, std::size_t bytes) {
  BAM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
}

}  // namespace bam::detail
