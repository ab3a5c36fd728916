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

void await_stream(stream_handle stream, const char* who) {
  if (stream == nullptr) return;
#if BAM_WITH_CUDA_RUNTIME
  BAM_CUDA_TRY(cudaStreamSynchronize(stream));
#else
  throw invalid_argument(std::string(who) + ": a CUDA stream was given to a build without the CUDA runtime");
#endif
}

void copy_to(const dma_buffer& dst, std::size_t offset, const void* src, std::size_t bytes, stream_handle stream) {
  check_range(dst, offset, bytes);
  if (dst.host() != nullptr) {
    await_stream(stream, "copy_to");
    std::memcpy(dst.host() + offset, src, bytes);
    return;
  }
#if BAM_WITH_CUDA_RUNTIME
  BAM_CUDA_TRY(cudaMemcpyAsync(dst.device() + offset, src, bytes, cudaMemcpyHostToDevice, stream));
  BAM_CUDA_TRY(cudaStreamSynchronize(stream));
#else
  throw error("copy_to: the buffer is not reachable from the CPU and this build has no CUDA runtime");
#endif
}

void copy_from(void* dst, const dma_buffer& src, std::size_t offset, std::size_t bytes, stream_handle stream) {
  check_range(src, offset, bytes);
  if (src.host() != nullptr) {
    await_stream(stream, "copy_from");
    std::memcpy(dst, src.host() + offset, bytes);
    return;
  }
#if BAM_WITH_CUDA_RUNTIME
  BAM_CUDA_TRY(cudaMemcpyAsync(dst, src.device() + offset, bytes, cudaMemcpyDeviceToHost, stream));
  BAM_CUDA_TRY(cudaStreamSynchronize(stream));
#else
  throw error("copy_from: the buffer is not reachable from the CPU and this build has no CUDA runtime");
#endif
}

}  // namespace bam::host
