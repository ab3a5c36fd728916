// SPDX-License-Identifier: Apache-2.0
// The list-scan kernel's templates (see gpu_ivf_scan.cuh). Included by one .cu per element type,
// each defining the launch_scan_typed overloads of its type, so instantiations compile in parallel.
#pragma once

#include "apps/vector/gpu_ivf_scan.cuh"
#include "apps/vector/gpu_util.cuh"
#include "apps/vector/topk.hpp"

#include <bam/gpu/warp_group.cuh>

#include <cuda/atomic>

namespace bam::vec::gpu {

namespace scan_detail {

/// Scanning threads of a block that takes items of Q pairs.
template <unsigned Q>
constexpr unsigned scan_threads = 32 * Q;
/// Blocks per SM the register allocation must allow. Unbounded, the cache's lookup and fill
/// paths take the kernel over bam::array past 85 registers a thread. With 16 queries an item,
/// two (at most 60 registers; the miss path spills) keep 34 warps resident, which the shared
/// memory of dimension-784 float blocks (about 88 KiB each) also allows; with 8, three (at most
/// 75 registers) cut the H200 scan of a resident list set from 4.4 to 3.9 ms against two.
template <unsigned Q>
constexpr unsigned scan_min_blocks = Q >= 16 ? 2 : 3;
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
 * Hand-written: cub::WarpReduce gives one sum per warp, so TV sums would cost TV * 5 shuffles.
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

template <class T, unsigned Q, unsigned C, unsigned TV>
struct scan_layout {
  BAM_HD static std::size_t queries(std::uint32_t dim) { return align16(Q * dim * sizeof(float)); }
  BAM_HD static std::size_t tile(std::uint32_t dim) { return align16(TV * dim * sizeof(T)); }
  BAM_HD static std::size_t bytes(std::uint32_t dim) {
    return queries(dim) + tile(dim) + Q * sizeof(topk_storage<C>);
  }
};

/// The work item that the b-th value of the item counter names (batches alternate the direction,
/// so a batch starts on the lists the previous one left in the cache).
__device__ inline std::uint32_t item_at(const scan_args& a, std::uint32_t items, std::uint32_t b) {
  return a.reverse ? items - 1 - b : b;
}

/// The last l in [0, n) with begin[l] <= x, for an ascending per-list prefix sum `begin`
/// (list_chunk_begin, list_offsets) whose first entry is at most x: the list that holds x.
template <class T, class U>
__device__ inline std::uint32_t list_holding(const T* begin, std::uint32_t n, U x) {
  std::uint32_t lo = 0, hi = n;
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (begin[mid] <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// The list of work item w: list_chunk_begin[l] <= w < list_chunk_begin[l + 1].
__device__ inline std::uint32_t list_of(const scan_args& a, std::uint32_t w) {
  return list_holding(a.list_chunk_begin, a.n_lists, w);
}

/// Warp `part` of `parts` prefetches its share of list l's elements (collective over the warp).
template <class Store>
__device__ void prefetch_list(const Store& store, bam::warp_group& g, const scan_args& a, std::uint32_t l,
                              unsigned part, unsigned parts) {
  const std::uint64_t first = a.list_offsets[l] * a.dim, n = (a.list_offsets[l + 1] - a.list_offsets[l]) * a.dim;
  const std::uint64_t share = (n + parts - 1) / parts;
  const std::uint64_t p0 = min(n, part * share);
  store.prefetch(g, first + p0, min(n - p0, share));
}

inline constexpr std::uint32_t no_chunk = 0xffffffffu;

/**
 * Claims the lowest look-ahead chunk in [lo, hi) that no warp has claimed, or returns no_chunk.
 * The counter holds the next unclaimed chunk; chunks below `lo` (the scan is past them) are
 * skipped for good. Relaxed: the counter only hands out chunk numbers, it publishes no data.
 */
__device__ inline std::uint32_t claim_chunk(std::uint32_t* counter, std::uint32_t lo, std::uint32_t hi) {
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> next(*counter);
  std::uint32_t c = next.load(cuda::memory_order_relaxed);
  for (;;) {
    const std::uint32_t want = max(c, lo);
    if (want >= hi) return no_chunk;
    if (next.compare_exchange_weak(c, want + 1, cuda::memory_order_relaxed)) return want;
  }
}

/**
 * The look-ahead warp's step (collective over the warp): keep the batch's reads ahead of the
 * scan. The vector section, taken in the batch's scan order, is cut into chunks of 32 pages;
 * the warp claims the next chunk that starts less than a.ahead_pages pages past the list of the
 * block's next item, and reads the parts of it that belong to lists the batch scans (one page
 * per lane, one round). Every block's look-ahead warp takes one step per item. A hint only:
 * the scanning warps still read whatever is missing. Memory without pages reads nothing.
 */
template <class Store>
__device__ void read_ahead(const Store& store, bam::warp_group& g, const scan_args& a, std::uint32_t list) {
  if constexpr (requires { store.elems_per_page(); }) {
    const std::uint64_t total = a.list_offsets[a.n_lists] * a.dim;
    const std::uint64_t chunk = std::uint64_t(store.elems_per_page()) * 32;
    const std::uint64_t at = a.reverse ? total - a.list_offsets[list + 1] * a.dim : a.list_offsets[list] * a.dim;
    const std::uint64_t limit = min(total, at + std::uint64_t(a.ahead_pages) * store.elems_per_page());
    std::uint32_t c = 0;
    if (g.rank() == 0) c = claim_chunk(a.ahead_chunk, std::uint32_t(at / chunk), std::uint32_t((limit + chunk - 1) / chunk));
    c = __shfl_sync(0xffffffffu, c, 0);
    if (c == no_chunk) return;
    const std::uint64_t s = std::uint64_t(c) * chunk, e = min(total, s + chunk);  // in scan order
    const std::uint64_t b = a.reverse ? total - e : s, end = a.reverse ? total - s : e;
    for (std::uint32_t l = list_holding(a.list_offsets, a.n_lists, b / a.dim); l < a.n_lists && a.list_offsets[l] * a.dim < end; ++l) {
      if (a.list_chunk_begin[l + 1] == a.list_chunk_begin[l]) continue;  // no pair of the batch probes it
      const std::uint64_t lb = max(b, a.list_offsets[l] * a.dim), le = min(end, a.list_offsets[l + 1] * a.dim);
      if (le > lb) store.prefetch(g, lb, le - lb);
    }
  }
}

/**
 * The scanning warp `warp`'s share of copying elements [first, first + total) into `tile`.
 * Over a paged store whose pages cut the tile into at least 4 pieces, each warp copies whole
 * pieces (pieces warp, warp + Q, ...), so it pins one page per round and each page
 * is pinned once per tile; otherwise (large pages, or memory without pages) the
 * warps copy equal shares, whose second page costs a warp a second pin round (on the H200 the
 * all-resident scan took 4.9 ms with equal shares, 3.7 ms with page pieces). Failures are left
 * in the cache's error slot (the host reports them).
 */
template <class T, unsigned Q, class Store>
__device__ void copy_tile(const Store& store, bam::warp_group& g, std::uint64_t first, std::uint64_t total, T* tile,
                          unsigned warp) {
  if constexpr (requires { store.elems_per_page(); }) {
    const std::uint64_t per = store.elems_per_page();
    const std::uint64_t p0 = first / per, pieces = (first + total - 1) / per + 1 - p0;
    if (pieces >= 4) {
      for (std::uint64_t p = warp; p < pieces; p += Q) {
        const std::uint64_t b = max(first, (p0 + p) * per), e = min(first + total, (p0 + p + 1) * per);
        (void)store.read_range(g, b, e - b, tile + (b - first));
      }
      return;
    }
  }
  const std::uint64_t share = (total + Q - 1) / Q;
  const std::uint64_t s0 = min(total, warp * share), s1 = min(total, s0 + share);
  if (s1 > s0) (void)store.read_range(g, first + s0, s1 - s0, tile + s0);
}

/// Barrier of the block's scanning threads only (named barrier 1), so that the look-ahead warp,
/// when the block has one, never holds them up.
template <unsigned Q>
__device__ inline void scan_sync() {
  asm volatile("bar.sync 1, %0;" ::"n"(scan_threads<Q>) : "memory");
}

/// The scanning warps' work on item w: prefetch the list (a no-op for pages resident or being
/// read), load the pairs' queries, walk the list in tiles, write each pair's top k.
template <class T, unsigned Q, unsigned C, unsigned TV, class Store>
__device__ void scan_item(const scan_args& a, const Store& store, bam::warp_group& g, std::uint32_t w,
                          unsigned char* smem) {
  using layout = scan_layout<T, Q, C, TV>;
  float* qs = reinterpret_cast<float*>(smem);
  T* tile = reinterpret_cast<T*>(smem + layout::queries(a.dim));
  auto* tops = reinterpret_cast<topk_storage<C>*>(smem + layout::queries(a.dim) + layout::tile(a.dim));
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint32_t lo = list_of(a, w);
  const std::uint32_t first_pair = a.list_pair_begin[lo] + (w - a.list_chunk_begin[lo]) * Q;
  const std::uint32_t pairs = min(Q, a.list_pair_begin[lo + 1] - first_pair);
  prefetch_list(store, g, a, lo, warp, Q);
  const std::uint64_t r0 = a.list_offsets[lo], r1 = a.list_offsets[lo + 1];

  for (std::uint32_t i = threadIdx.x; i < pairs * a.dim; i += scan_threads<Q>) {
    const std::uint32_t query = a.pair_slot[first_pair + i / a.dim] / a.nprobe;
    qs[i] = a.queries[std::uint64_t(query) * a.dim + i % a.dim];
  }
  group_topk<C, bam::warp_group> top(g, tops[warp], a.k);

  for (std::uint64_t r = r0; r < r1; r += TV) {
    const auto nt = std::uint32_t(min(std::uint64_t(TV), r1 - r));
    scan_sync<Q>();  // queries loaded; the previous tile consumed
    copy_tile<T, Q>(store, g, r * a.dim, std::uint64_t(nt) * a.dim, tile, warp);
    scan_sync<Q>();
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

/**
 * Blocks take work items from a shared counter (the item in hand and the one taken next stay
 * within a window of about two grids' worth of consecutive items, so the lists being read fit a
 * small cache and long lists do not leave blocks idle). With a look-ahead warp (blockDim =
 * scan_threads<Q> + 32) that warp takes the block's next item when the current one starts and,
 * while the scanning warps work, reads one chunk ahead of it (read_ahead).
 * Item numbers pass through item[2] in shared memory: iteration i reads item[i % 2] and writes
 * item[(i + 1) % 2]; the block-wide barrier at the end of each iteration orders that write
 * before the next iteration's reads, and those reads before the write after them.
 */
template <class T, unsigned Q, unsigned C, unsigned TV, class Store>
__global__ void __launch_bounds__(scan_threads<Q> + 32, scan_min_blocks<Q>) scan_kernel(scan_args a, Store store) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ std::uint32_t item[2];
  const std::uint32_t items = a.list_chunk_begin[a.n_lists];
  const bool look_ahead = blockDim.x > scan_threads<Q>;
  const unsigned taker = look_ahead ? scan_threads<Q> : 0;  // the thread that takes the next item
  bam::warp_group g;
  if (threadIdx.x == taker) item[0] = atomicAdd(a.next_item, 1u);
  __syncthreads();
  for (unsigned i = 0;; ++i) {
    const std::uint32_t b = item[i % 2];
    if (b >= items) break;
    std::uint32_t next = 0;
    if (threadIdx.x == taker) item[(i + 1) % 2] = next = atomicAdd(a.next_item, 1u);
    if (threadIdx.x < scan_threads<Q>) {
      scan_item<T, Q, C, TV>(a, store, g, item_at(a, items, b), smem);
    } else {
      next = __shfl_sync(0xffffffffu, next, 0);  // from the taker, the look-ahead warp's lane 0
      if (next < items) read_ahead(store, g, a, list_of(a, item_at(a, items, next)));
    }
    __syncthreads();  // the item is done with the shared memory; item[(i + 1) % 2] is set
  }
}

/// The shared memory a block of the current GPU may opt in to.
inline std::size_t block_smem_limit() {
  int device = 0, limit = 0;
  BAM_CUDA_TRY(cudaGetDevice(&device));
  BAM_CUDA_TRY(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return std::size_t(limit);
}

template <class T, unsigned Q, unsigned C, unsigned TV, class Store>
void launch(const Store& store, const scan_args& a, std::uint64_t blocks) {
  const std::size_t smem = scan_layout<T, Q, C, TV>::bytes(a.dim), limit = block_smem_limit();
  BAM_EXPECTS(smem <= limit, "IVF scan: dimension " + std::to_string(a.dim) + " with k = " +
                                              std::to_string(a.k) + " needs " + std::to_string(smem) +
                                              " bytes of shared memory per block, the GPU has " + std::to_string(limit));
  auto* kernel = &scan_kernel<T, Q, C, TV, Store>;
  BAM_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  kernel<<<unsigned(blocks), scan_threads<Q> + (a.ahead_pages > 0 ? 32 : 0), smem>>>(a, store);
  check_launch("IVF list scan");
}

/// Calls f(C, TV) with the top-k capacity and tile rows the scan of T vectors uses for k, dim.
template <class T, class F>
decltype(auto) with_scan_shape(std::uint32_t k, std::uint32_t dim, F&& f) {
  const bool narrow = std::size_t(dim) * sizeof(T) <= 1024;  // 32 rows fit 32 KiB
  return with_capacity(k, [&](auto cap) {
    if (narrow) return f(cap, std::integral_constant<unsigned, 32>{});
    return f(cap, std::integral_constant<unsigned, 8>{});
  });
}

/// scan_queries_per_item for element type T (see gpu_ivf_scan.cuh).
template <class T>
std::uint32_t queries_per_item_for(std::uint32_t dim, std::uint32_t k) {
  const std::size_t bytes = with_scan_shape<T>(k, dim, [&](auto cap, auto tv) {
    return scan_layout<T, scan_queries_max, decltype(cap)::value, decltype(tv)::value>::bytes(dim);
  });
  return bytes <= block_smem_limit() ? scan_queries_max : scan_queries_min;
}

}  // namespace scan_detail

/// Launches the scan for element type T over `store` (rows_view<T> or bam::array<T>), with the
/// items of a.queries_per_item pairs that the host grouped the batch into.
template <class T, class Store>
void launch_scan_for(const Store& store, const scan_args& a, std::uint64_t blocks) {
  scan_detail::with_scan_shape<T>(a.k, a.dim, [&](auto cap, auto tv) {
    constexpr unsigned C = decltype(cap)::value, TV = decltype(tv)::value;
    if (a.queries_per_item == scan_queries_max) scan_detail::launch<T, scan_queries_max, C, TV>(store, a, blocks);
    else scan_detail::launch<T, scan_queries_min, C, TV>(store, a, blocks);
  });
}

}  // namespace bam::vec::gpu
