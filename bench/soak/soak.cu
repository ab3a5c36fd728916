// SPDX-License-Identifier: Apache-2.0
// bench/soak on the GPU: one kernel per phase, every thread a lane of its warp
// (bam::warp_group) running the portable lane_work; the model lives in VRAM.
#include "bench/soak/lane_work.hpp"
#include "bench/soak/lanes.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/detail/gpu_seconds.hpp>
#include <bam/gpu/warp_group.cuh>
#include <bam/host/memory/cuda_buffer.hpp>

#include <algorithm>
#include <memory>

namespace bam::bench::soak {

namespace {

constexpr unsigned block_threads = 256;

/// Every thread is one lane; blocks are whole warps, so every warp_group has 32 members.
__global__ void __launch_bounds__(block_threads) phase_kernel(phase_params p) {
  warp_group g;
  lane_work(g, p, blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x);
}

class gpu_lanes final : public lanes {
 public:
  gpu_lanes() {
    BAM_CUDA_TRY(cudaGetDeviceProperties(&prop_, 0));
    int per_sm = 0;
    BAM_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phase_kernel, block_threads, 0));
    full_blocks_ = unsigned(std::max(1, per_sm)) * unsigned(prop_.multiProcessorCount);
    counts_ = host::cuda_buffer<phase_counts>(1);
  }

  std::string name() const override { return prop_.name; }
  nlohmann::json details() const override {
    return {{"sms", prop_.multiProcessorCount},
            {"vram_gib", prop_.totalGlobalMem >> 30},
            {"lanes", {{"warp", lanes_of(grid_kind::warp)}, {"block", lanes_of(grid_kind::block)},
                       {"full", lanes_of(grid_kind::full)}}}};
  }
  bool on_gpu() const override { return true; }
  std::uint64_t lanes_of(grid_kind grid) const override { return std::uint64_t{blocks_of(grid)} * threads_of(grid); }

  lane_memory allocate(std::size_t bytes) override {
    auto b = std::make_shared<host::cuda_buffer<std::byte>>(std::max<std::size_t>(bytes, 1));
    b->zero();
    return lane_memory(b, b->data());  // shares the owner, points at its memory
  }
  void upload(void* dst, const void* src, std::size_t bytes) override {
    BAM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  }
  void download(void* dst, const void* src, std::size_t bytes) override {
    BAM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  }

  phase_result run(phase_params p, grid_kind grid) override {
    counts_.zero();
    p.counts = counts_.data();
    phase_result r;
    r.seconds = detail::gpu_seconds([&] { phase_kernel<<<blocks_of(grid), threads_of(grid)>>>(p); });
    counts_.download({&r.counts, 1});
    return r;
  }

 private:
  unsigned blocks_of(grid_kind grid) const { return grid == grid_kind::full ? full_blocks_ : 1; }
  static unsigned threads_of(grid_kind grid) { return grid == grid_kind::warp ? 32 : block_threads; }

  cudaDeviceProp prop_{};
  unsigned full_blocks_ = 0;
  host::cuda_buffer<phase_counts> counts_;
};

}  // namespace

std::unique_ptr<lanes> make_gpu_lanes() { return std::make_unique<gpu_lanes>(); }

}  // namespace bam::bench::soak
