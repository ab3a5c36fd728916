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

/// Loader warps of a pipelined block: they read tiles through the cache while the scanning
/// warps compute on the other tile buffer.
constexpr unsigned loader_warps = 4;
constexpr unsigned pipe_threads = scan_threads + 32 * loader_warps;  ///< scanning + loading threads

/// Stores read through bam::array are pipelined when two tile buffers fit in shared memory (the
/// cache's lookup and pin latency then hides behind compute); in-memory stores take the
/// single-buffer path, where the scanning warps load the tiles themselves.
template <class Store>
inline constexpr bool can_pipeline = true;
template <class T>
inline constexpr bool can_pipeline<rows_view<T>> = false;

template <class T, unsigned C, unsigned TV, unsigned Buffers>
struct scan_layout {
  BAM_HD static std::size_t queries(std::uint32_t dim) { return align16(scan_queries * dim * sizeof(float)); }
  BAM_HD static std::size_t tile(std::uint32_t dim) { return align16(TV * dim * sizeof(T)); }
  BAM_HD static std::size_t tops(std::uint32_t dim) { return queries(dim) + Buffers * tile(dim); }
  BAM_HD static std::size_t bytes(std::uint32_t dim) { return tops(dim) + scan_queries * sizeof(topk_storage<C>); }
};

/// The work item that the b-th value of the item counter names (batches alternate the direction,
/// so a batch starts on the lists the previous one left in the cache).
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

/// Work item w: its list, its (query, probe) pairs, and the list's rows [r0, r1).
struct item_span {
  std::uint32_t list, first_pair, pairs;
  std::uint64_t r0, r1;
  [[nodiscard]] __device__ std::uint32_t tiles(unsigned tv) const { return std::uint32_t((r1 - r0 + tv - 1) / tv); }
};
__device__ inline item_span span_of(const scan_args& a, std::uint32_t w) {
  const std::uint32_t l = list_of(a, w);
  const std::uint32_t first_pair = a.list_pair_begin[l] + (w - a.list_chunk_begin[l]) * scan_queries;
  return {l, first_pair, min(scan_queries, a.list_pair_begin[l + 1] - first_pair), a.list_offsets[l],
          a.list_offsets[l + 1]};
}

/// Warp `part` of `parts` prefetches its share of list l's elements (collective over the warp).
template <class Store>
__device__ void prefetch_list(const Store& store, bam::gpu::warp_group& g, const scan_args& a, std::uint32_t l,
                              unsigned part, unsigned parts) {
  const std::uint64_t first = a.list_offsets[l] * a.dim, n = (a.list_offsets[l + 1] - a.list_offsets[l]) * a.dim;
  const std::uint64_t share = (n + parts - 1) / parts;
  const std::uint64_t p0 = min(n, part * share);
  store.prefetch(g, first + p0, min(n - p0, share));
}

/// Warp `part` of `parts` copies its contiguous share of the elements of rows [r, r + nt) into
/// `tile` (collective over the warp; bam: one page pin at a time, failures in the error slot).
template <class T, class Store>
__device__ void load_tile_share(const Store& store, bam::gpu::warp_group& g, const scan_args& a, std::uint64_t r,
                                std::uint32_t nt, T* tile, unsigned part, unsigned parts) {
  const std::uint64_t total = std::uint64_t(nt) * a.dim, share = (total + parts - 1) / parts;
  const std::uint64_t s0 = min(total, part * share), s1 = min(total, s0 + share);
  if (s1 > s0) (void)store.read_range(g, r * a.dim + s0, s1 - s0, tile + s0);
}

/// Scanning warp `warp` copies its pair's query into its row of `qs` (the warp's own row only).
__device__ inline void load_query(const scan_args& a, const item_span& it, float* qs, unsigned warp, unsigned lane) {
  if (warp >= it.pairs) return;
  const std::uint32_t query = a.pair_slot[it.first_pair + warp] / a.nprobe;
  for (std::uint32_t j = lane; j < a.dim; j += 32) qs[warp * a.dim + j] = a.queries[std::uint64_t(query) * a.dim + j];
  __syncwarp();
}

/// Scanning warp: the keys of its query against tile rows [r, r + nt) go into its top k.
template <unsigned TV, class T, class Top>
__device__ void score_tile(const scan_args& a, const float* q, const T* tile, std::uint64_t r, std::uint32_t nt,
                           unsigned lane, Top& top) {
  float acc[TV];
  if (a.m == metric::l2) tile_partials<TV, true>(q, tile, a.dim, lane, acc);
  else tile_partials<TV, false>(q, tile, a.dim, lane, acc);
  const float sum = transpose_sum<TV>(acc, lane);
  top.push(lane < nt ? (a.m == metric::l2 ? sum : -sum) : no_key(), std::int64_t(r + lane));
}

/// Scanning warp: writes its pair's top k to the pair's slot of the candidate buffer.
template <unsigned C>
__device__ void write_top(const scan_args& a, const item_span& it, const topk_storage<C>& top, unsigned warp,
                          unsigned lane) {
  const std::uint64_t slot = a.pair_slot[it.first_pair + warp];
  for (std::uint32_t j = lane; j < a.k; j += 32) {
    a.out_key[slot * a.k + j] = top.key[j];
    a.out_row[slot * a.k + j] = top.id[j];
  }
}

__device__ inline void bar_sync(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ inline void bar_arrive(unsigned id, unsigned threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
/// Named barriers: 1 = the scanning threads (single-buffer path); 2 + b = tile buffer b full
/// (loaders arrive, scanners wait); 4 + b = tile buffer b free (scanners arrive, loaders wait).
constexpr unsigned bar_scan = 1, bar_full = 2, bar_free = 4;

/// Single-buffer item (in-memory stores): the scanning warps load each tile, then score it.
template <class T, unsigned C, unsigned TV, class Store>
__device__ void scan_item(const scan_args& a, const Store& store, bam::gpu::warp_group& g, const item_span& it,
                          unsigned char* smem) {
  using layout = scan_layout<T, C, TV, 1>;
  float* qs = reinterpret_cast<float*>(smem);
  T* tile = reinterpret_cast<T*>(smem + layout::queries(a.dim));
  auto* tops = reinterpret_cast<topk_storage<C>*>(smem + layout::tops(a.dim));
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  prefetch_list(store, g, a, it.list, warp, scan_queries);
  load_query(a, it, qs, warp, lane);
  group_topk<C, bam::gpu::warp_group> top(g, tops[warp], a.k);
  for (std::uint64_t r = it.r0; r < it.r1; r += TV) {
    const auto nt = std::uint32_t(min(std::uint64_t(TV), it.r1 - r));
    bar_sync(bar_scan, scan_threads);  // the previous tile consumed
    load_tile_share(store, g, a, r, nt, tile, warp, scan_queries);
    bar_sync(bar_scan, scan_threads);
    if (warp < it.pairs) score_tile<TV>(a, qs + warp * a.dim, tile, r, nt, lane, top);
  }
  if (warp < it.pairs) {
    top.finish();
    write_top<C>(a, it, tops[warp], warp, lane);
  }
}

/**
 * Pipelined item (bam stores): loader warps fill tile t into buffer t % 2 while the scanning
 * warps score tile t - 1 from the other. Tile t's loaders wait on "free" until the scanners
 * released tile t - 2 (from t = 2 on), then arrive on "full"; scanners wait on "full", score,
 * and arrive on "free" when a tile t + 2 will reuse the buffer. Each arrive is matched by
 * exactly one wait of the same generation, and the barriers order the loaders' shared-memory
 * stores before the scanners' loads and those loads before the next stores.
 */
template <class T, unsigned C, unsigned TV, class Store>
__device__ void pipeline_item(const scan_args& a, const Store& store, bam::gpu::warp_group& g, const item_span& it,
                              unsigned char* smem) {
  using layout = scan_layout<T, C, TV, 2>;
  float* qs = reinterpret_cast<float*>(smem);
  T* tiles = reinterpret_cast<T*>(smem + layout::queries(a.dim));
  const std::size_t tile_elems = layout::tile(a.dim) / sizeof(T);
  auto* tops = reinterpret_cast<topk_storage<C>*>(smem + layout::tops(a.dim));
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint32_t n_tiles = it.tiles(TV);
  if (warp >= scan_queries) {  // a loader
    const unsigned part = warp - scan_queries;
    prefetch_list(store, g, a, it.list, part, loader_warps);
    for (std::uint32_t t = 0; t < n_tiles; ++t) {
      const unsigned b = t % 2;
      const std::uint64_t r = it.r0 + std::uint64_t(t) * TV;
      if (t >= 2) bar_sync(bar_free + b, pipe_threads);
      load_tile_share(store, g, a, r, std::uint32_t(min(std::uint64_t(TV), it.r1 - r)), tiles + b * tile_elems, part,
                      loader_warps);
      bar_arrive(bar_full + b, pipe_threads);
    }
    return;
  }
  load_query(a, it, qs, warp, lane);
  group_topk<C, bam::gpu::warp_group> top(g, tops[warp], a.k);
  for (std::uint32_t t = 0; t < n_tiles; ++t) {
    const unsigned b = t % 2;
    const std::uint64_t r = it.r0 + std::uint64_t(t) * TV;
    bar_sync(bar_full + b, pipe_threads);
    if (warp < it.pairs)
      score_tile<TV>(a, qs + warp * a.dim, tiles + b * tile_elems, r, std::uint32_t(min(std::uint64_t(TV), it.r1 - r)),
                     lane, top);
    if (t + 2 < n_tiles) bar_arrive(bar_free + b, pipe_threads);
  }
  if (warp < it.pairs) {
    top.finish();
    write_top<C>(a, it, tops[warp], warp, lane);
  }
}

/**
 * Blocks take work items from a shared counter (the item in hand and the one taken next stay
 * within a window of about two grids' worth of consecutive items, so the lists being read fit a
 * small cache and long lists do not leave blocks idle). Threads [0, work) scan (and, pipelined,
 * load); with a look-ahead warp (blockDim = work + 32) that warp takes the block's next item
 * when the current one starts and prefetches its whole list while the others work, waiting only
 * for its own reads. Item numbers pass through item[2] in shared memory: iteration i reads
 * item[i % 2] and writes item[(i + 1) % 2]; the block-wide barrier at the end of each iteration
 * orders that write before the next iteration's reads, and those reads before the write after.
 */
template <class T, unsigned C, unsigned TV, bool Pipe, class Store>
__global__ void __launch_bounds__(pipe_threads + 32) scan_kernel(scan_args a, Store store) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ std::uint32_t item[2];
  constexpr unsigned work = Pipe ? pipe_threads : scan_threads;
  const std::uint32_t items = a.list_chunk_begin[a.n_lists];
  const unsigned taker = blockDim.x > work ? work : 0;  // the thread that takes the next item
  bam::gpu::warp_group g;
  if (threadIdx.x == taker) item[0] = atomicAdd(a.next_item, 1u);
  __syncthreads();
  for (unsigned i = 0;; ++i) {
    const std::uint32_t b = item[i % 2];
    if (b >= items) break;
    std::uint32_t next = 0;
    if (threadIdx.x == taker) item[(i + 1) % 2] = next = atomicAdd(a.next_item, 1u);
    if (threadIdx.x < work) {
      const item_span it = span_of(a, item_at(a, items, b));
      if constexpr (Pipe) pipeline_item<T, C, TV>(a, store, g, it, smem);
      else scan_item<T, C, TV>(a, store, g, it, smem);
    } else {
      next = __shfl_sync(0xffffffffu, next, 0);  // from the taker, the look-ahead warp's lane 0
      if (next < items) prefetch_list(store, g, a, list_of(a, item_at(a, items, next)), 0, 1);
    }
    __syncthreads();  // the item is done with the shared memory; item[(i + 1) % 2] is set
  }
}

template <class T, unsigned C, unsigned TV, bool Pipe, class Store>
void launch_kernel(const Store& store, const scan_args& a, std::uint64_t blocks, std::size_t smem) {
  auto* kernel = &scan_kernel<T, C, TV, Pipe, Store>;
  BAM_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const unsigned threads = (Pipe ? pipe_threads : scan_threads) + (a.prefetch_next ? 32 : 0);
  kernel<<<unsigned(blocks), threads, smem>>>(a, store);
  check_launch("IVF list scan");
}

template <class T, unsigned C, unsigned TV, class Store>
void launch(const Store& store, const scan_args& a, std::uint64_t blocks) {
  const std::size_t single = scan_layout<T, C, TV, 1>::bytes(a.dim), twin = scan_layout<T, C, TV, 2>::bytes(a.dim);
  int device = 0, limit = 0;
  BAM_CUDA_TRY(cudaGetDevice(&device));
  BAM_CUDA_TRY(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  BAM_EXPECTS(single <= std::size_t(limit), "IVF scan: dimension " + std::to_string(a.dim) + " with k = " +
                                                std::to_string(a.k) + " needs " + std::to_string(single) +
                                                " bytes of shared memory per block, the GPU has " + std::to_string(limit));
  if constexpr (can_pipeline<Store>) {
    if (twin <= std::size_t(limit)) return launch_kernel<T, C, TV, true>(store, a, blocks, twin);
  }
  launch_kernel<T, C, TV, false>(store, a, blocks, single);
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
