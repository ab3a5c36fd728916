// SPDX-License-Identifier: Apache-2.0
#include "apps/bam-demo/readers.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/detail/gpu_seconds.hpp>

namespace bam::demo {

namespace {
__global__ void readers_kernel(const queues::queue_pair_ref<>* pairs, unsigned n_pairs, std::byte* frames,
                               std::uint64_t bus, read_plan p, reader_totals* out) {
  const std::uint64_t r = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (r >= p.readers) return;
  const std::size_t frame = std::size_t{p.blocks} * p.block_bytes;
  const auto t = read_and_verify(pairs[detail::worker_id() % n_pairs], frames + r * frame, bus + r * frame, p.blocks,
                                 p.block_bytes, p.n_blocks, p.seed, r, p.reads_per_reader, p.timeout_ns);
  atomicAdd(&out->reads, t.reads);
  atomicAdd(&out->bad_bytes, t.bad_bytes);
  if (t.failures && atomicAdd(&out->failures, t.failures) == 0) {
    out->first_status = t.first_status;
    out->first_lba = t.first_lba;
  }
}
}  // namespace

run_totals run_gpu_readers(const read_plan& p) {
  queues::queue_pair_ref<>* pairs = nullptr;
  reader_totals* out = nullptr;
  BAM_CUDA_TRY(cudaMalloc(&pairs, sizeof(*pairs) * p.pairs->size()));
  BAM_CUDA_TRY(cudaMalloc(&out, sizeof *out));
  BAM_CUDA_TRY(cudaMemcpy(pairs, p.pairs->data(), sizeof(*pairs) * p.pairs->size(), cudaMemcpyHostToDevice));
  BAM_CUDA_TRY(cudaMemset(out, 0, sizeof *out));
  read_plan dev = p;
  dev.pairs = nullptr;
  dev.frames = nullptr;
  const unsigned block = 256;
  run_totals r;
  r.seconds = detail::gpu_seconds([&] {
    readers_kernel<<<unsigned((p.readers + block - 1) / block), block>>>(pairs, unsigned(p.pairs->size()),
                                                                       p.frames->device(), p.frames->bus_at(0), dev, out);
  });
  BAM_CUDA_TRY(cudaMemcpy(&r.totals, out, sizeof *out, cudaMemcpyDeviceToHost));
  cudaFree(pairs);
  cudaFree(out);
  return r;
}

}  // namespace bam::demo
