// SPDX-License-Identifier: Apache-2.0
// BAM_CUDA_TRY: every CUDA runtime call in host code goes through it; a failure throws
// bam::cuda_error naming the call, the error and file:line (never print-and-continue).
// Host-only; included only by CUDA-aware host sources (cuda_*.cpp, .cu files).
#pragma once

#include <bam/error.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace bam::detail {
[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear a sticky-free error so the next call starts clean
  throw cuda_error(std::string(call) + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) +
                   " (" + file + ":" + std::to_string(line) + ")");
}
}  // namespace bam::detail

#define BAM_CUDA_TRY(call)                                                              \
  do {                                                                                  \
    const cudaError_t bam_cuda_try_status_ = (call);                                    \
    if (bam_cuda_try_status_ != cudaSuccess)                                            \
      ::bam::detail::throw_cuda_error(bam_cuda_try_status_, #call, __FILE__, __LINE__); \
  } while (0)
