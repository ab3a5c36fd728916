// SPDX-License-Identifier: Apache-2.0
#include <bam/host/memory/device_copy.hpp>

#include <bam/error.hpp>

#include <cstring>
#include <string>

#if BAM_WITH_CUDA_RUNTIME
#include <bam/detail/cuda_try.hpp>
#endif

namespace bam::host {

namespace {
void check_range(const dma_buffer& b, std::size_t offset, std::size_t bytes) {
  BAM_EXPECTS(offset <= b.size() && bytes <= b.size() - offset,
              "copy of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                  " overruns a buffer of " + std::to_string(b.size()));
}
}  // namespace

void copy_to(const dma_buffer& dst, std::size_t offset, const void* src, std::size_t bytes) {
  check_range(dst, offset, bytes);
  if (dst.host() != nullptr) {
    std::memcpy(dst.host() + offset, src, bytes);
    return;
  }
#if BAM_WITH_CUDA_RUNTIME
  BAM_CUDA_TRY(cudaMemcpy(dst.device() + offset, src, bytes, cudaMemcpyHostToDevice));
#else
  throw error("copy_to: the buffer is not reachable from the CPU and this build has no CUDA runtime");
#endif
}

void copy_from(void* dst, const dma_buffer& src, std::size_t offset, std::size_t bytes) {
  check_range(src, offset, bytes);
  if (src.host() != nullptr) {
    std::memcpy(dst, src.host() + offset, bytes);
    return;
  }
#if BAM_WITH_CUDA_RUNTIME
  BAM_CUDA_TRY(cudaMemcpy(dst, src.device() + offset, bytes, cudaMemcpyDeviceToHost));
#else
  throw error("copy_from: the buffer is not reachable from the CPU and this build has no CUDA runtime");
#endif
}

}  // namespace bam::host
