// SPDX-License-Identifier: Apache-2.0
// bam::vec::gpu: per-row selection kernels over score matrices and candidate lists (one warp
// per row, group_topk in shared memory): nearest centroid, top-k of a GEMM tile merged with a
// running best, and the final merge of per-list candidates into results. nvcc only.
#pragma once

#include "apps/vector/metric.hpp"

#include <cstdint>

namespace bam::vec::gpu {

/**
 * @brief labels[i] = argmin_c key(i, c), keys[i] = that key, where key = norms[c] - 2 s[i][c]
 * (l2; add ||x_i||^2 for the squared distance) or -s[i][c] (ip).
 * @param scores rows x cols, row-major (a GEMM of rows against centroids)
 */
void argmin_rows(const float* scores, std::uint64_t rows, std::uint32_t cols, const float* norms, metric m,
                 std::uint32_t* labels, float* keys);

/**
 * @brief Per row, the k best keys of: the row's running best (prev_key/prev_id, k entries, or
 * none when null) and the row's cols candidates (key as in argmin_rows, id id_base + c).
 * @param out_key, out_id rows x k, best first (may not alias prev)
 */
void topk_rows(const float* scores, std::uint64_t rows, std::uint32_t cols, const float* norms, metric m,
               std::uint32_t k, const float* prev_key, const std::int64_t* prev_id, float* out_key,
               std::int64_t* out_id, std::int64_t id_base);

/**
 * @brief Per row, the k best of n candidates (cand_key/cand_row, rows x n), as results: ids
 * ids[row] (or the row itself when ids is null; -1 stays -1) and distances key_to_distance(key
 * + add[row]) (add may be null; l2 distances are clamped at 0).
 */
void merge_rows(const float* cand_key, const std::int64_t* cand_row, std::uint64_t rows, std::uint32_t n,
                std::uint32_t k, const std::int64_t* ids, metric m, const float* add, std::int64_t* out_ids,
                float* out_dist);

}  // namespace bam::vec::gpu
