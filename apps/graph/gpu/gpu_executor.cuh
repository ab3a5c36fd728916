// SPDX-License-Identifier: Apache-2.0
// Runs the graph steps as kernels (nvcc only): group steps get one full warp per item (dealt in
// chunks of consecutive items), lane steps one thread per item, both over grid-stride loops on
// a grid no larger than what is resident, and, over cached storage, small enough that the
// warps' pins fit in half the slots.
#pragma once

#include "apps/graph/gpu/runners.hpp"
#include "apps/graph/gpu/step_support.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/error.hpp>
#include <bam/gpu/warp_group.cuh>
#include <bam/host/memory/cuda_buffer.hpp>

#include <cub/warp/warp_reduce.cuh>

#include <algorithm>
#include <cstdint>

namespace bam::graph::gpu {

namespace kernels {

/// Adds every lane's totals into *out: a warp sum (valid in lane 0), then one atomic per field
/// from lane 0.
/// @pre all 32 lanes of the warp call it (blocks are whole warps, at most 1024 threads).
__device__ inline void add_totals(step_totals t, step_totals* out) {
  using warp_sum = cub::WarpReduce<step_totals>;
  __shared__ typename warp_sum::TempStorage storage[1024 / 32];
  t = warp_sum(storage[threadIdx.x / 32]).Sum(t);
  if (threadIdx.x % 32 == 0) {
    if (t.edges) atomicAdd(reinterpret_cast<unsigned long long*>(&out->edges), t.edges);
    if (t.vertices) atomicAdd(reinterpret_cast<unsigned long long*>(&out->vertices), t.vertices);
    if (t.degrees) atomicAdd(reinterpret_cast<unsigned long long*>(&out->degrees), t.degrees);
    if (t.change != 0) atomicAdd(&out->change, t.change);
  }
}

/// Most consecutive items a warp takes at a time in group_items.
inline constexpr std::uint64_t group_chunk = 32;

/**
 * Items are dealt in chunks of consecutive items, up to group_chunk once there are enough for
 * every warp to have full chunks: warp w takes chunks w, w + warps, ... (loop bounds are the
 * same for every lane). With chunks, warps reading adjacency lists through the cache work on
 * different pages at once, so many reads are in flight, rather than every warp crowding the
 * few pages of adjacent items and waiting for one read.
 */
template <class Step>
__device__ void group_items_body(std::uint64_t n, const Step& step, step_totals* out) {
  const std::uint64_t warp = (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / 32;
  const std::uint64_t warps = gridDim.x * std::uint64_t(blockDim.x) / 32;
  const std::uint64_t per_warp = n / warps;
  const std::uint64_t chunk = per_warp < 1 ? 1 : per_warp > group_chunk ? group_chunk : per_warp;
  bam::warp_group g(0xffffffffu);
  step_totals mine;
  for (std::uint64_t first = warp * chunk; first < n; first += warps * chunk) {
    const std::uint64_t end = first + chunk < n ? first + chunk : n;
    for (std::uint64_t i = first; i < end; ++i) mine += step(g, i);
  }
  add_totals(mine, out);
}

template <class Step>
__device__ void lane_items_body(std::uint64_t n, const Step& step, step_totals* out) {
  const std::uint64_t threads = gridDim.x * std::uint64_t(blockDim.x);
  step_totals mine;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += threads) mine += step(i);
  __syncwarp();
  add_totals(mine, out);
}

// Each body as a kernel, and again with at most 128 registers a thread. Steps over cached
// storage need 135 to 162; above 128 an SM holds one 256-thread block, capped it holds two,
// and the few bytes spilled cost less than the halved occupancy (register_cap below).
template <class Step>
__global__ void group_items(std::uint64_t n, Step step, step_totals* out) {
  group_items_body(n, step, out);
}
template <class Step>
__global__ void __maxnreg__(128) group_items_capped(std::uint64_t n, Step step, step_totals* out) {
  group_items_body(n, step, out);
}
template <class Step>
__global__ void lane_items(std::uint64_t n, Step step, step_totals* out) {
  lane_items_body(n, step, out);
}
template <class Step>
__global__ void __maxnreg__(128) lane_items_capped(std::uint64_t n, Step step, step_totals* out) {
  lane_items_body(n, step, out);
}

}  // namespace kernels

/**
 * Whether a step runs in the 128-register kernels: yes, unless it declares
 * `static constexpr bool register_cap = false`. Measured on an H100 (GAP-kron 23, every edge
 * resident in the cache): BFS 28 -> 18 ms, CC 7.5 -> 5.5 ms, PageRank 736 -> 522 ms, SSSP 135 ->
 * 113 ms; with a cache of 1/8, BFS and PageRank got faster too, CC stayed, but SSSP's relax
 * step got 25% slower, so it opts out.
 */
template <class Step>
inline constexpr bool register_cap = [] {
  if constexpr (requires { Step::register_cap; }) return bool(Step::register_cap);
  return true;
}();

class gpu_executor {
 public:
  template <class T>
  using buffer = host::cuda_buffer<T>;

  /**
   * @param slots the cache's slots when the graph is read through it (0: plain memory)
   * @throw bam::invalid_argument for a block size that is not a multiple of 32
   */
  gpu_executor(const run_options& o, std::uint64_t slots)
      : block_(o.block_threads), max_warps_(o.max_warps), slots_(slots), totals_(1) {
    BAM_EXPECTS(block_ >= 32 && block_ <= 1024 && block_ % 32 == 0,
                "block_threads must be a multiple of 32 in 32..1024, not " + std::to_string(block_));
    int device = 0;
    BAM_CUDA_TRY(cudaGetDevice(&device));
    BAM_CUDA_TRY(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  }

  template <class T>
  [[nodiscard]] buffer<T> make(std::uint64_t n) const {
    return buffer<T>(n);
  }

  /// One warp per item (dealt in chunks, see group_items); `pins`: cache pages a warp may hold
  /// at once.
  template <class Step>
  step_totals for_groups(std::uint64_t n, unsigned pins, const Step& step) {
    const std::uint64_t blocks = (n + block_ / 32 - 1) / (block_ / 32);
    if constexpr (register_cap<Step>) return launch(kernels::group_items_capped<Step>, n, blocks, pins, step);
    else return launch(kernels::group_items<Step>, n, blocks, pins, step);
  }
  /// One thread per item; `pins`: cache pages a warp may hold at once (32 when every lane reads
  /// its own element through the cache).
  template <class Step>
  step_totals for_lanes(std::uint64_t n, unsigned pins, const Step& step) {
    const std::uint64_t blocks = (n + block_ - 1) / block_;
    if constexpr (register_cap<Step>) return launch(kernels::lane_items_capped<Step>, n, blocks, pins, step);
    else return launch(kernels::lane_items<Step>, n, blocks, pins, step);
  }
  void synchronize() const { BAM_CUDA_TRY(cudaDeviceSynchronize()); }
  /// Reads one word the kernels can read (VRAM, pinned or managed memory).
  template <class T>
  [[nodiscard]] T fetch(const T* p) const {
    T v;
    BAM_CUDA_TRY(cudaMemcpy(&v, p, sizeof(T), cudaMemcpyDefault));
    return v;
  }

 private:
  template <class Kernel, class Step>
  step_totals launch(Kernel kernel, std::uint64_t n, std::uint64_t wanted_blocks, unsigned pins, const Step& step) {
    if (n == 0) return {};
    int per_sm = 0;
    BAM_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(block_), 0));
    std::uint64_t blocks = std::min<std::uint64_t>(wanted_blocks, std::uint64_t(std::max(per_sm, 1)) * sms_);
    const std::uint64_t warps_per_block = block_ / 32;
    if (slots_ != 0 && pins != 0) blocks = std::min(blocks, slots_ / (2 * pins * warps_per_block));
    if (max_warps_ != 0) blocks = std::min(blocks, max_warps_ / warps_per_block);
    blocks = std::max<std::uint64_t>(blocks, 1);
    BAM_CUDA_TRY(cudaMemset(totals_.data(), 0, sizeof(step_totals)));
    kernel<<<unsigned(blocks), block_>>>(n, step, totals_.data());
    BAM_CUDA_TRY(cudaGetLastError());
    BAM_CUDA_TRY(cudaDeviceSynchronize());
    step_totals t;
    totals_.download({&t, 1});
    return t;
  }

  unsigned block_;
  std::uint64_t max_warps_;
  std::uint64_t slots_;
  int sms_ = 0;
  host::cuda_buffer<step_totals> totals_;
};

}  // namespace bam::graph::gpu
