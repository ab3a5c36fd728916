// SPDX-License-Identifier: Apache-2.0
// The list-scan kernel's templates (see gpu_ivf_scan.cuh). Included by one .cu per element type,
// each defining the launch_scan_typed overloads of its type, so instantiations compile in parallel.
#pragma once

#include "apps/vector/gpu_ivf_scan.cuh"
#include "apps/vector/gpu_util.cuh"
#include "apps/vector/topk.hpp"

#include <bam/gpu/warp_group.cuh>

namespace bam::vec::gpu {

namespace scan_detail {

constexpr unsigned scan_threads = 32 * scan_queries;
BAM_HD constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }

/// Lane `lane`'s partial sums for the TV tile vectors over dimensions lane, lane + 32, ...
template <unsigned TV, bool L2, class T>
__device__ void tile_partials(const float* q, const T* tile, std::uint32_t dim, unsigned lane, float (&acc)[TV]) {
#pragma unroll
  for (unsigned v = 0; v < TV; ++v) acc[v] = 0.0f;
  for (std::uint32_t j = lane; j < dim; j += 32) {
    const float qj = q[j];
#pragma unroll
    for (unsigned v = 0; v < TV; ++v) {
      const float x = to_float(tile[v * dim + j]);
      if constexpr (L2) {
        const float t = qj - x;
        acc[v] = fmaf(t, t, acc[v]);
      } else {
        acc[v] = fmaf(qj, x, acc[v]);
      }
    }
  }
}

/**
 * Sums acc[v] over the warp's lanes for every v and returns, in lane l, the sum for vector
 * l % TV: TV - 1 exchange steps halve the array (lanes with bit s set keep the upper half),
 * then a butterfly adds the TV-lane groups. 31 shuffles for TV = 32, 9 for TV = 8.
 */
template <unsigned TV>
__device__ float transpose_sum(float (&acc)[TV], unsigned lane) {
#pragma unroll
  for (unsigned s = TV / 2; s >= 1; s /= 2) {
    const bool upper = (lane & s) != 0;
#pragma unroll
    for (unsigned i = 0; i < s; ++i) {
      const float send = upper ? acc[i] : acc[i + s];
      const float keep = upper ? acc[i + s] : acc[i];
      acc[i] = keep + __shfl_xor_sync(0xffffffffu, send, int(s));
    }
  }
  float v = acc[0];
#pragma unroll
  for (unsigned s = TV; s < 32; s *= 2) v += __shfl_xor_sync(0xffffffffu, v, int(s));
  return v;
}

template <class T, unsigned C, unsigned TV>
struct scan_layout {
  BAM_HD static std::size_t queries(std::uint32_t dim) { return align16(scan_queries * dim * sizeof(float)); }
  BAM_HD static std::size_t tile(std::uint32_t dim) { return align16(TV * dim * sizeof(T)); }
  BAM_HD static std::size_t bytes(std::uint32_t dim) {
    return queries(dim) + tile(dim) + scan_queries * sizeof(topk_storage<C>);
  }
};

/// The work item the kernel's b-th step names (batches alternate the direction, so a batch
/// starts on the lists the previous one left in the cache).
__device__ inline std::uint32_t item_at(const scan_args& a, std::uint32_t items, std::uint32_t b) {
  return a.reverse ? items - 1 - b : b;
}

/// The list of work item w: list_chunk_begin[l] <= w < list_chunk_begin[l + 1].
__device__ inline std::uint32_t list_of(const scan_args& a, std::uint32_t w) {
  std::uint32_t lo = 0, hi = a.n_lists;
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (a.list_chunk_begin[mid] <= w) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// Warp `warp` prefetches its eighth of list l's elements (collective over the warp).
template <class Store>
__device__ void prefetch_share(const Store& store, bam::gpu::warp_group& g, const scan_args& a, std::uint32_t l,
                               unsigned warp) {
  const std::uint64_t first = a.list_offsets[l] * a.dim, n = (a.list_offsets[l + 1] - a.list_offsets[l]) * a.dim;
  const std::uint64_t share = (n + scan_queries - 1) / scan_queries;
  const std::uint64_t p0 = min(n, warp * share);
  store.prefetch(g, first + p0, min(n - p0, share));
}

template <class T, unsigned C, unsigned TV, class Store>
__global__ void __launch_bounds__(scan_threads) scan_kernel(scan_args a, Store store) {
  extern __shared__ __align__(16) unsigned char smem[];
  using layout = scan_layout<T, C, TV>;
  float* qs = reinterpret_cast<float*>(smem);
  T* tile = reinterpret_cast<T*>(smem + layout::queries(a.dim));
  auto* tops = reinterpret_cast<topk_storage<C>*>(smem + layout::queries(a.dim) + layout::tile(a.dim));
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint32_t items = a.list_chunk_begin[a.n_lists];
  bam::gpu::warp_group g;

  for (std::uint32_t b = blockIdx.x; b < items; b += gridDim.x) {
    const std::uint32_t w = item_at(a, items, b);
    const std::uint32_t lo = list_of(a, w);
    const std::uint32_t first_pair = a.list_pair_begin[lo] + (w - a.list_chunk_begin[lo]) * scan_queries;
    const std::uint32_t pairs = min(scan_queries, a.list_pair_begin[lo + 1] - first_pair);

    // The reads of this item's list (and, with prefetch_next, of the block's next item's list)
    // go out before the scan (a no-op for pages resident or already being read), so the
    // next list arrives while this one is scanned, rather than the scan meeting missing pages a
    // tile at a time.
    prefetch_share(store, g, a, lo, warp);
    if (a.prefetch_next && b + gridDim.x < items)
      prefetch_share(store, g, a, list_of(a, item_at(a, items, b + gridDim.x)), warp);
    const std::uint64_t r0 = a.list_offsets[lo], r1 = a.list_offsets[lo + 1];

    __syncthreads();  // the previous work item is done with the shared memory
    for (std::uint32_t i = threadIdx.x; i < pairs * a.dim; i += scan_threads) {
      const std::uint32_t query = a.pair_slot[first_pair + i / a.dim] / a.nprobe;
      qs[i] = a.queries[std::uint64_t(query) * a.dim + i % a.dim];
    }
    group_topk<C, bam::gpu::warp_group> top(g, tops[warp], a.k);

    for (std::uint64_t r = r0; r < r1; r += TV) {
      const auto nt = std::uint32_t(min(std::uint64_t(TV), r1 - r));
      const std::uint64_t total = std::uint64_t(nt) * a.dim;
      const std::uint64_t share = (total + scan_queries - 1) / scan_queries;
      const std::uint64_t s0 = min(total, warp * share), s1 = min(total, s0 + share);
      __syncthreads();  // queries loaded; the previous tile consumed
      if (s1 > s0) (void)store.read_range(g, r * a.dim + s0, s1 - s0, tile + s0);  // failures: in the cache's error slot
      __syncthreads();
      if (warp < pairs) {
        float acc[TV];
        if (a.m == metric::l2) tile_partials<TV, true>(qs + warp * a.dim, tile, a.dim, lane, acc);
        else tile_partials<TV, false>(qs + warp * a.dim, tile, a.dim, lane, acc);
        const float sum = transpose_sum<TV>(acc, lane);
        top.push(lane < nt ? (a.m == metric::l2 ? sum : -sum) : no_key(), std::int64_t(r + lane));
      }
    }
    if (warp < pairs) {
      top.finish();
      const std::uint64_t slot = a.pair_slot[first_pair + warp];
      for (std::uint32_t j = lane; j < a.k; j += 32) {
        a.out_key[slot * a.k + j] = tops[warp].key[j];
        a.out_row[slot * a.k + j] = tops[warp].id[j];
      }
    }
  }
}

template <class T, unsigned C, unsigned TV, class Store>
void launch(const Store& store, const scan_args& a, std::uint64_t blocks) {
  const std::size_t smem = scan_layout<T, C, TV>::bytes(a.dim);
  int device = 0, limit = 0;
  BAM_CUDA_TRY(cudaGetDevice(&device));
  BAM_CUDA_TRY(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  BAM_EXPECTS(smem <= std::size_t(limit), "IVF scan: dimension " + std::to_string(a.dim) + " with k = " +
                                              std::to_string(a.k) + " needs " + std::to_string(smem) +
                                              " bytes of shared memory per block, the GPU has " + std::to_string(limit));
  auto* kernel = &scan_kernel<T, C, TV, Store>;
  BAM_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  kernel<<<unsigned(blocks), scan_threads, smem>>>(a, store);
  check_launch("IVF list scan");
}

}  // namespace scan_detail

/// Launches the scan for element type T over `store` (rows_view<T> or bam::array<T>).
template <class T, class Store>
void launch_scan_for(const Store& store, const scan_args& a, std::uint64_t blocks) {
  const bool narrow = std::size_t(a.dim) * sizeof(T) <= 1024;  // 32 rows fit 32 KiB
  with_capacity(a.k, [&](auto cap) {
    constexpr unsigned C = decltype(cap)::value;
    if (narrow) scan_detail::launch<T, C, 32>(store, a, blocks);
    else scan_detail::launch<T, C, 8>(store, a, blocks);
  });
}

}  // namespace bam::vec::gpu
