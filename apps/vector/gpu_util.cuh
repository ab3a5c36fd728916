// SPDX-License-Identifier: Apache-2.0
// bam::vec::gpu: the cuBLAS handle and the one GEMM every search uses
// (row-major scores = A . B^T), for the vector-search kernels. nvcc only.
#pragma once

#include <bam/detail/cuda_try.hpp>
#include <bam/error.hpp>
#include <bam/host/memory/cuda_buffer.hpp>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bam::vec::gpu {

/// Throws bam::cuda_error naming a failed cuBLAS call.
void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line);

#define BAM_CUBLAS_TRY(call)                                                          \
  do {                                                                                \
    const cublasStatus_t bam_cublas_status_ = (call);                                 \
    if (bam_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                  \
      ::bam::vec::gpu::throw_cublas(bam_cublas_status_, #call, __FILE__, __LINE__);   \
  } while (0)

/// Checks the last kernel launch and (when `sync`) waits for it; throws bam::cuda_error.
void check_launch(const char* what, bool sync = false);

[[nodiscard]] constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

/// A cuBLAS handle (move-only).
class blas {
 public:
  blas() {
    BAM_CUBLAS_TRY(cublasCreate(&h_));
    BAM_CUBLAS_TRY(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH));  // float32 FMA, no TF32
  }
  ~blas() { cublasDestroy(h_); }
  blas(const blas&) = delete;
  blas& operator=(const blas&) = delete;

  /**
   * @brief scores[i][j] = sum_t a[i][t] * b[j][t] for row-major a (rows_a x d), b (rows_b x d)
   * and scores (rows_a x rows_b), in float32 (exact products, no tensor-core rounding).
   */
  void scores(const float* a, std::uint64_t rows_a, const float* b, std::uint64_t rows_b, std::uint32_t d,
              float* scores) const;

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace bam::vec::gpu
