// SPDX-License-Identifier: Apache-2.0
#include "apps/bam-demo/workload.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/host/memory/cuda_buffer.hpp>

namespace bam::demo {

namespace {
/// One worker per thread. Totals are summed with relaxed device atomics and read by the host only
/// after the kernel has completed (the blocking cudaMemcpy orders them).
__global__ void step_kernel(demo_arrays a, step_plan p, step_totals* out) {
  const std::uint64_t w = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (w >= p.workers) return;
  const step_totals t = run_worker(a, p, w);
  if (t.reads) atomicAdd(&out->reads, t.reads);
  if (t.writes) atomicAdd(&out->writes, t.writes);
  if (t.wrong) atomicAdd(&out->wrong, t.wrong);
}
}  // namespace

step_totals run_gpu_step(const demo_arrays& a, const step_plan& p) {
  host::cuda_buffer<step_totals> out(1);
  out.zero();
  constexpr unsigned block = 256;
  step_kernel<<<unsigned((p.workers + block - 1) / block), block>>>(a, p, out.data());
  BAM_CUDA_TRY(cudaGetLastError());
  step_totals t;
  out.download({&t, 1});
  return t;
}

}  // namespace bam::demo
