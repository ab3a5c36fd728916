// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/gpu_util.cuh"

namespace bam::vec::gpu {

void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  throw bam::cuda_error(std::string(call) + " failed: " + cublasGetStatusName(s) + ": " + cublasGetStatusString(s) +
                        " (" + file + ":" + std::to_string(line) + ")");
}

void check_launch(const char* what, bool sync) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && sync) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) bam::detail::throw_cuda_error(e, what, __FILE__, __LINE__);
}

void blas::scores(const float* a, std::uint64_t rows_a, const float* b, std::uint64_t rows_b, std::uint32_t d,
                  float* out) const {
  // Column-major view: out^T (rows_b x rows_a) = b (rows_b x d) . a^T; b is d x rows_b
  // column-major, so op(B_cm) = transpose; a is d x rows_a column-major, taken as is.
  const float one = 1.0f, zero = 0.0f;
  BAM_CUBLAS_TRY(cublasSgemm(h_, CUBLAS_OP_T, CUBLAS_OP_N, int(rows_b), int(rows_a), int(d), &one, b, int(d), a,
                             int(d), &zero, out, int(rows_b)));
}

}  // namespace bam::vec::gpu
