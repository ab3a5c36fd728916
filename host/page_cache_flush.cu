// SPDX-License-Identifier: Apache-2.0
#include "host/page_cache_flush.hpp"

#include <bam/detail/cuda_try.hpp>

#include <memory>

namespace bam::host::detail {

namespace {
__global__ void write_back(cache::cache_ref<nvme_backend> cache, unsigned* first_failure) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const status s = cache.flush(tid, gridDim.x * blockDim.x);
  if (s != status::ok) atomicCAS(first_failure, 0u, unsigned(s));
}
__global__ void flush_namespace(nvme_backend backend, std::uint32_t nsid, std::uint64_t timeout_ns,
                                unsigned* first_failure) {
  const status s = backend.flush_namespace(nsid, bam::detail::now_ns() + timeout_ns);
  if (s != status::ok) atomicCAS(first_failure, 0u, unsigned(s));
}
}  // namespace

status flush_cache_gpu(const cache::cache_ref<nvme_backend>& cache, const nvme_backend& backend,
                       const std::vector<std::uint32_t>& nsids, std::uint64_t timeout_ns, stream_handle stream) {
  // The first failure, in stream-ordered VRAM (cudaFree would wait for the whole device); freed
  // on every way out, a thrown cuda_error included.
  unsigned* word = nullptr;
  BAM_CUDA_TRY(cudaMallocAsync(&word, sizeof *word, stream));
  const auto release = [stream](unsigned* p) { (void)cudaFreeAsync(p, stream); };
  const std::unique_ptr<unsigned, decltype(release)> owner(word, release);
  unsigned* const failure = owner.get();
  BAM_CUDA_TRY(cudaMemsetAsync(failure, 0, sizeof *failure, stream));
  const unsigned block = 256, grid = std::max(1u, std::min(1024u, (cache.n_slots() + block - 1) / block));
  write_back<<<grid, block, 0, stream>>>(cache, failure);
  BAM_CUDA_TRY(cudaGetLastError());
  for (const std::uint32_t nsid : nsids) flush_namespace<<<1, 1, 0, stream>>>(backend, nsid, timeout_ns, failure);
  BAM_CUDA_TRY(cudaGetLastError());
  unsigned h = 0;
  BAM_CUDA_TRY(cudaMemcpyAsync(&h, failure, sizeof h, cudaMemcpyDeviceToHost, stream));
  BAM_CUDA_TRY(cudaStreamSynchronize(stream));
  return status(h);
}

}  // namespace bam::host::detail
