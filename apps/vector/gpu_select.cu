// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/gpu_select.cuh"
#include "apps/vector/gpu_util.cuh"
#include "apps/vector/topk.hpp"

#include <bam/gpu/warp_group.cuh>

#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>
#include <cub/warp/warp_reduce.cuh>

namespace bam::vec::gpu {

namespace {

constexpr unsigned warps_per_block = 4;

__device__ float score_key(metric m, float score, const float* norms, std::uint32_t c) {
  return m == metric::l2 ? norms[c] - 2.0f * score : -score;
}

__global__ void argmin_kernel(const float* scores, std::uint64_t rows, std::uint32_t cols, const float* norms, metric m,
                              std::uint32_t* labels, float* keys) {
  using labelled_key = cub::KeyValuePair<std::uint32_t, float>;
  using warp_arg_min = cub::WarpReduce<labelled_key>;
  __shared__ typename warp_arg_min::TempStorage storage[warps_per_block];
  const std::uint64_t row = blockIdx.x * std::uint64_t(warps_per_block) + threadIdx.x / 32;
  if (row >= rows) return;  // whole warps leave together
  const unsigned lane = threadIdx.x % 32;
  float best = no_key();
  std::uint32_t label = 0;
  for (std::uint32_t c = lane; c < cols; c += 32) {
    const float k = score_key(m, scores[row * cols + c], norms, c);
    if (k < best) {
      best = k;
      label = c;
    }
  }
  // ArgMin: ties go to the lower label, so the result does not depend on the reduction order.
  const labelled_key nearest =
      warp_arg_min(storage[threadIdx.x / 32]).Reduce(labelled_key(label, best), cub::ArgMin{});
  if (lane == 0) {  // the reduction is valid in lane 0
    labels[row] = nearest.key;
    keys[row] = nearest.value;
  }
}

template <unsigned C>
__global__ void topk_kernel(const float* scores, std::uint64_t rows, std::uint32_t cols, const float* norms, metric m,
                            std::uint32_t k, const float* prev_key, const std::int64_t* prev_id, float* out_key,
                            std::int64_t* out_id, std::int64_t id_base) {
  __shared__ topk_storage<C> storage[warps_per_block];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint64_t row = blockIdx.x * std::uint64_t(warps_per_block) + warp;
  if (row >= rows) return;
  bam::warp_group g;
  group_topk<C, bam::warp_group> top(g, storage[warp], k);
  if (prev_key) {
    for (std::uint32_t j0 = 0; j0 < k; j0 += 32) {
      const std::uint32_t j = j0 + lane;
      top.push(j < k ? prev_key[row * k + j] : no_key(), j < k ? prev_id[row * k + j] : -1);
    }
  }
  for (std::uint32_t c0 = 0; c0 < cols; c0 += 32) {
    const std::uint32_t c = c0 + lane;
    top.push(c < cols ? score_key(m, scores[row * cols + c], norms, c) : no_key(), id_base + c);
  }
  top.finish();
  for (std::uint32_t j = lane; j < k; j += 32) {
    out_key[row * k + j] = storage[warp].key[j];
    out_id[row * k + j] = storage[warp].id[j];
  }
}

template <unsigned C>
__global__ void merge_kernel(const float* cand_key, const std::int64_t* cand_row, std::uint64_t rows, std::uint32_t n,
                             std::uint32_t k, const std::int64_t* ids, metric m, const float* add,
                             std::int64_t* out_ids, float* out_dist) {
  __shared__ topk_storage<C> storage[warps_per_block];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint64_t row = blockIdx.x * std::uint64_t(warps_per_block) + warp;
  if (row >= rows) return;
  bam::warp_group g;
  group_topk<C, bam::warp_group> top(g, storage[warp], k);
  for (std::uint32_t c0 = 0; c0 < n; c0 += 32) {
    const std::uint32_t c = c0 + lane;
    top.push(c < n ? cand_key[row * n + c] : no_key(), c < n ? cand_row[row * n + c] : -1);
  }
  top.finish();
  const float extra = add ? add[row] : 0.0f;
  for (std::uint32_t j = lane; j < k; j += 32) {
    const std::int64_t r = storage[warp].id[j];
    const float key = storage[warp].key[j];
    float d = key_to_distance(m, key == no_key() ? key : key + extra);
    if (m == metric::l2 && d < 0) d = 0;
    out_ids[row * k + j] = r < 0 ? -1 : (ids ? ids[r] : r);
    out_dist[row * k + j] = d;
  }
}

unsigned blocks_for(std::uint64_t rows) { return unsigned(ceil_div(rows, warps_per_block)); }

}  // namespace

void argmin_rows(const float* scores, std::uint64_t rows, std::uint32_t cols, const float* norms, metric m,
                 std::uint32_t* labels, float* keys) {
  if (rows == 0) return;
  argmin_kernel<<<blocks_for(rows), warps_per_block * 32>>>(scores, rows, cols, norms, m, labels, keys);
  check_launch("argmin_rows");
}

void topk_rows(const float* scores, std::uint64_t rows, std::uint32_t cols, const float* norms, metric m,
               std::uint32_t k, const float* prev_key, const std::int64_t* prev_id, float* out_key,
               std::int64_t* out_id, std::int64_t id_base) {
  if (rows == 0) return;
  with_capacity(k, [&](auto cap) {
    topk_kernel<decltype(cap)::value><<<blocks_for(rows), warps_per_block * 32>>>(
        scores, rows, cols, norms, m, k, prev_key, prev_id, out_key, out_id, id_base);
  });
  check_launch("topk_rows");
}

void merge_rows(const float* cand_key, const std::int64_t* cand_row, std::uint64_t rows, std::uint32_t n,
                std::uint32_t k, const std::int64_t* ids, metric m, const float* add, std::int64_t* out_ids,
                float* out_dist) {
  if (rows == 0) return;
  with_capacity(k, [&](auto cap) {
    merge_kernel<decltype(cap)::value><<<blocks_for(rows), warps_per_block * 32>>>(cand_key, cand_row, rows, n, k, ids,
                                                                                   m, add, out_ids, out_dist);
  });
  check_launch("merge_rows");
}

}  // namespace bam::vec::gpu
