// SPDX-License-Identifier: Apache-2.0
// gpu_seconds: how long the GPU takes for the work a callable enqueues, timed by CUDA events.
// Host-only; included only by CUDA-aware host sources (.cu files).
#pragma once

#include <bam/detail/cuda_try.hpp>

#include <cuda_runtime_api.h>

namespace bam::detail {

/// A CUDA event, destroyed with its scope.
class cuda_event {
 public:
  cuda_event() { BAM_CUDA_TRY(cudaEventCreate(&e_)); }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  ~cuda_event() { cudaEventDestroy(e_); }
  [[nodiscard]] cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
};

/**
 * @brief Seconds between events recorded on the default stream before and after `enqueue()`.
 * @throw bam::cuda_error when a launch in `enqueue` failed, or from the runtime.
 */
template <class Enqueue>
double gpu_seconds(Enqueue&& enqueue) {
  const cuda_event start, stop;
  BAM_CUDA_TRY(cudaEventRecord(start.get()));
  enqueue();
  BAM_CUDA_TRY(cudaGetLastError());
  BAM_CUDA_TRY(cudaEventRecord(stop.get()));
  BAM_CUDA_TRY(cudaEventSynchronize(stop.get()));
  float ms = 0;
  BAM_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return double(ms) * 1e-3;
}

}  // namespace bam::detail
