// SPDX-License-Identifier: Apache-2.0
// Exact search on the GPU over any list_source: tiles of rows are read through the store
// (read_range per row, one warp each), converted to float with their norms, scored against the
// queries by GEMM, and folded into a running top-k per query.
#include "apps/vector/gpu_rows.cuh"
#include "apps/vector/gpu_search.hpp"
#include "apps/vector/gpu_select.cuh"
#include "apps/vector/gpu_source.cuh"
#include "apps/vector/gpu_util.cuh"

#include <bam/gpu/warp_group.cuh>

#include <cub/warp/warp_reduce.cuh>

#include <algorithm>
#include <chrono>

namespace bam::vec::gpu {

namespace {

constexpr unsigned tile_warps = 8;
constexpr std::uint64_t tile_rows = 8192;

/// Rows [first, first + n) of the store into tile (n x dim floats) and their squared norms.
template <class T, class Store>
__global__ void __launch_bounds__(tile_warps * 32) load_tile(Store store, std::uint64_t first, std::uint32_t n,
                                                              std::uint32_t dim, float* tile, float* norms) {
  extern __shared__ __align__(16) unsigned char smem[];
  using warp_sum = cub::WarpReduce<float>;
  __shared__ typename warp_sum::TempStorage sum_storage[tile_warps];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  T* row = reinterpret_cast<T*>(smem) + std::size_t(warp) * dim;
  bam::warp_group g;
  for (std::uint32_t r = blockIdx.x * tile_warps + warp; r < n; r += gridDim.x * tile_warps) {
    (void)store.read_range(g, (first + r) * dim, dim, row);  // failures: in the cache's error slot
    __syncwarp();
    float s = 0;
    for (std::uint32_t j = lane; j < dim; j += 32) {
      const float x = to_float(row[j]);
      tile[std::uint64_t(r) * dim + j] = x;
      s = fmaf(x, x, s);
    }
    s = warp_sum(sum_storage[warp]).Sum(s);  // valid in lane 0
    if (lane == 0) norms[r] = s;
    __syncwarp();
  }
}

void launch_load(const list_source& src, std::uint64_t first, std::uint32_t n, std::uint32_t dim, float* tile,
                 float* norms) {
  visit_store(src, [&](const auto& store, auto tag) {
    using T = decltype(tag);
    using S = std::decay_t<decltype(store)>;
    const std::size_t smem = std::size_t(tile_warps) * dim * sizeof(T);
    auto* kernel = &load_tile<T, S>;
    BAM_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    const std::uint64_t blocks = resident_blocks(src, tile_warps, ceil_div(n, tile_warps));
    kernel<<<unsigned(blocks), tile_warps * 32, smem>>>(store, first, n, dim, tile, norms);
    check_launch("exact search tile load");
  });
}

}  // namespace

search_results exact_search(const list_source& src, std::uint64_t rows, std::uint32_t dim, metric m,
                            std::span<const std::int64_t> ids, const matrix<float>& queries, std::uint32_t k,
                            const std::string& what, std::uint64_t batch, const batch_fn& on_batch) {
  check_exact_request(what, rows, dim, queries.dim, k);
  BAM_EXPECTS(dim <= max_gpu_dim, what + ": dimension " + std::to_string(dim) + " exceeds the GPU limit " +
                                      std::to_string(max_gpu_dim));
  BAM_EXPECTS(ids.empty() || ids.size() == rows, what + ": one id per row expected");
  if (batch == 0) batch = 16384;
  batch = std::min<std::uint64_t>(batch, queries.rows);
  const std::uint64_t tile = std::min(tile_rows, rows);
  blas b;
  host::cuda_buffer<float> q(batch * dim), qnorm(batch), t(tile * dim), tnorm(tile), scores(batch * tile);
  host::cuda_buffer<float> key_a(batch * k), key_b(batch * k), out_dist(batch * k);
  host::cuda_buffer<std::int64_t> id_a(batch * k), id_b(batch * k), out_ids(batch * k), dev_ids(ids.size());
  if (!ids.empty()) dev_ids.upload(ids);

  search_results out(queries.rows, k);
  for (std::uint64_t first = 0, index = 0; first < queries.rows; first += batch, ++index) {
    const std::uint64_t nb = std::min(batch, queries.rows - first);
    BAM_CUDA_TRY(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    q.upload({queries.data.data() + first * dim, nb * dim});
    row_norms(q.data(), nb, dim, qnorm.data());
    float *best_key = nullptr, *next_key = key_a.data();
    std::int64_t *best_id = nullptr, *next_id = id_a.data();
    for (std::uint64_t r = 0; r < rows; r += tile) {
      const auto n = std::uint32_t(std::min(tile, rows - r));
      launch_load(src, r, n, dim, t.data(), tnorm.data());
      b.scores(q.data(), nb, t.data(), n, dim, scores.data());
      topk_rows(scores.data(), nb, n, tnorm.data(), m, k, best_key, best_id, next_key, next_id, std::int64_t(r));
      best_key = next_key;
      best_id = next_id;
      next_key = best_key == key_a.data() ? key_b.data() : key_a.data();
      next_id = best_id == id_a.data() ? id_b.data() : id_a.data();
    }
    merge_rows(best_key, best_id, nb, k, k, ids.empty() ? nullptr : dev_ids.data(), m,
               m == metric::l2 ? qnorm.data() : nullptr, out_ids.data(), out_dist.data());
    out_ids.download({out.ids.data() + first * k, nb * k});
    out_dist.download({out.distances.data() + first * k, nb * k});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (on_batch) on_batch({index, first, nb, seconds});
  }
  return out;
}

}  // namespace bam::vec::gpu
