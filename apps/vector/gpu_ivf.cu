// SPDX-License-Identifier: Apache-2.0
// The IVF searcher's host side: VRAM state and the per-batch pipeline (coarse GEMM, probe
// selection, pairs grouped by list, list scan, merge).
#include "apps/vector/gpu_ivf_scan.cuh"
#include "apps/vector/gpu_rows.cuh"
#include "apps/vector/gpu_search.hpp"
#include "apps/vector/gpu_select.cuh"
#include "apps/vector/gpu_source.cuh"
#include "apps/vector/gpu_util.cuh"

#include <bam/detail/gpu_seconds.hpp>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>

namespace bam::vec::gpu {

namespace {

/// counts[probe[i]] += 1 for every (query, probe) pair i.
__global__ void count_pairs(const std::int64_t* probes, std::uint64_t n, std::uint32_t* counts) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    atomicAdd(&counts[probes[i]], 1u);
}

/// chunks[l] = work items of list l (ceil(pairs / per_item)); chunks[n_lists] = 0.
__global__ void count_chunks(const std::uint32_t* counts, std::uint32_t n_lists, std::uint32_t per_item,
                             std::uint32_t* chunks) {
  const std::uint32_t l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l <= n_lists) chunks[l] = l < n_lists ? (counts[l] + per_item - 1) / per_item : 0;
}

/// Counting sort: pair i goes to the next free place of its list (order within a list is free).
__global__ void scatter_pairs(const std::int64_t* probes, std::uint64_t n, std::uint32_t* cursor, std::uint32_t* slot) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    slot[atomicAdd(&cursor[probes[i]], 1u)] = std::uint32_t(i);
}

unsigned grid_for(std::uint64_t n) { return unsigned(std::clamp<std::uint64_t>(ceil_div(n, 256), 1, 8192)); }

/// The fewest work items of scan_queries_max pairs a list must have on average for the
/// automatic look-ahead. With fewer, the blocks in flight span so many lists that their pages
/// fill most of the cache, and reads ahead evict pages still to be scanned: on the H200
/// (Fashion-MNIST, 1024 lists, 25% cache) the look-ahead cost 20-30% at 2.4 items a list
/// (nprobe 4, or 5000 queries a batch at nprobe 8) and gained 15-45% from 4.9 (nprobe 8 and
/// more, 10,000 queries a batch).
constexpr std::uint64_t look_ahead_min_items = 4;

/**
 * How many pages the look-ahead warps read ahead of the scan for a batch of `pairs` over `lists`
 * lists; 0: no look-ahead warp. Only through a cache, only when asked for; an explicit distance
 * is taken as is, the automatic one (an eighth of the cache) only when the lists hold enough
 * work items.
 */
std::uint32_t look_ahead_pages(const search_options& o, const list_source& src, std::uint64_t pairs,
                               std::uint32_t lists) {
  const std::uint64_t slots = cache_slots(src);
  if (!o.prefetch_next || slots == 0) return 0;
  if (o.look_ahead_pages > 0) return o.look_ahead_pages;
  if (pairs < look_ahead_min_items * scan_queries_max * lists) return 0;
  return std::uint32_t(std::max<std::uint64_t>(slots / 8, 1));
}

}  // namespace

struct ivf_searcher::state {
  blas blas;
  host::cuda_buffer<float> centroids, cnorm, queries, scores, probe_key, cand_key, out_dist;
  host::cuda_buffer<std::uint64_t> offsets;
  host::cuda_buffer<std::int64_t> ids, probes, cand_row, out_ids;
  host::cuda_buffer<std::uint32_t> counts, chunks, pair_begin, chunk_begin, cursor, pair_slot;
  host::cuda_buffer<std::uint32_t> counters{2};  ///< the scan's work-item and look-ahead chunk counters
  host::cuda_buffer<std::byte> temp;
  std::uint64_t batches = 0;

  /// ExclusiveSum of n values (CUB), temporary storage grown as needed.
  void exclusive_sum(const std::uint32_t* in, std::uint32_t* out, std::uint32_t n) {
    std::size_t bytes = 0;
    BAM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n));
    temp.reserve(std::max<std::size_t>(bytes, 1));  // a null pointer would make CUB only size the work
    BAM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, in, out, n));
  }
};

ivf_searcher::ivf_searcher(const ivf_index& index) : index_(index), s_(std::make_unique<state>()) {
  BAM_EXPECTS(index.dim() <= max_gpu_dim, index.path() + ": dimension " + std::to_string(index.dim()) +
                                               " exceeds the GPU search limit " + std::to_string(max_gpu_dim));
  BAM_EXPECTS(index.size() < (std::uint64_t{1} << 40), index.path() + ": too many vectors for the GPU searcher");
  const std::uint32_t nl = index.n_lists();
  s_->centroids = host::cuda_buffer<float>(index.centroids().size());
  s_->centroids.upload(index.centroids());
  s_->cnorm = host::cuda_buffer<float>(nl);
  row_norms(s_->centroids.data(), nl, index.dim(), s_->cnorm.data());
  s_->offsets = host::cuda_buffer<std::uint64_t>(nl + 1);
  s_->offsets.upload(index.list_offsets());
  s_->ids = host::cuda_buffer<std::int64_t>(index.size());
  s_->ids.upload(index.ids());
  for (auto* b : {&s_->counts, &s_->chunks, &s_->pair_begin, &s_->chunk_begin, &s_->cursor})
    *b = host::cuda_buffer<std::uint32_t>(nl + 1);
}

ivf_searcher::~ivf_searcher() = default;

search_results ivf_searcher::search(const matrix<float>& queries, const search_options& o, const list_source& src,
                                    std::uint64_t batch, const batch_fn& on_batch) {
  check_ivf_request(index_, queries.dim, o);
  BAM_EXPECTS(scalar_of_source(src) == index_.scalar(), "IVF search: the source holds " + to_string(scalar_of_source(src)) +
                                                            " vectors, " + index_.path() + " stores " +
                                                            to_string(index_.scalar()));
  const std::uint32_t d = index_.dim(), nl = index_.n_lists(), k = o.k, np = o.nprobe;
  if (batch == 0) {  // scores, candidates and queries of a batch within 1 GiB
    const std::uint64_t per_query = std::uint64_t(nl) * 4 + std::uint64_t(np) * k * 12 + std::uint64_t(d) * 4 + np * 16;
    batch = std::max<std::uint64_t>(1, (std::uint64_t{1} << 30) / per_query);
  }
  batch = std::min<std::uint64_t>({batch, queries.rows, std::uint64_t{1} << 24});
  BAM_EXPECTS(batch * np < (std::uint64_t{1} << 32), "IVF search: batch x nprobe must stay below 2^32 pairs");
  state& s = *s_;
  const std::uint32_t per_item = scan_queries_per_item(src, d, k);
  s.queries.reserve(batch * d);
  s.scores.reserve(batch * nl);
  s.probe_key.reserve(batch * np);
  s.probes.reserve(batch * np);
  s.pair_slot.reserve(batch * np);
  s.cand_key.reserve(batch * np * k);
  s.cand_row.reserve(batch * np * k);
  s.out_ids.reserve(batch * k);
  s.out_dist.reserve(batch * k);

  search_results out(queries.rows, k);
  for (std::uint64_t first = 0; first < queries.rows; first += batch) {
    const std::uint64_t nb = std::min(batch, queries.rows - first);
    const std::uint64_t pairs = nb * np;
    BAM_CUDA_TRY(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    s.queries.upload({queries.data.data() + first * d, nb * d});
    const double upload_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Coarse: the nprobe nearest lists of every query.
    s.blas.scores(s.queries.data(), nb, s.centroids.data(), nl, d, s.scores.data());
    topk_rows(s.scores.data(), nb, nl, s.cnorm.data(), index_.metric(), np, nullptr, nullptr, s.probe_key.data(),
              s.probes.data(), 0);
    // Group the pairs by list.
    BAM_CUDA_TRY(cudaMemset(s.counts.data(), 0, (nl + 1) * sizeof(std::uint32_t)));
    count_pairs<<<grid_for(pairs), 256>>>(s.probes.data(), pairs, s.counts.data());
    count_chunks<<<unsigned(ceil_div(nl + 1, 256)), 256>>>(s.counts.data(), nl, per_item, s.chunks.data());
    check_launch("IVF pair counts");
    s.exclusive_sum(s.counts.data(), s.pair_begin.data(), nl + 1);
    s.exclusive_sum(s.chunks.data(), s.chunk_begin.data(), nl + 1);
    BAM_CUDA_TRY(cudaMemcpy(s.cursor.data(), s.pair_begin.data(), nl * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice));
    scatter_pairs<<<grid_for(pairs), 256>>>(s.probes.data(), pairs, s.cursor.data(), s.pair_slot.data());
    check_launch("IVF pair scatter");
    // Scan the lists, then merge nprobe x k candidates per query.
    const std::uint32_t ahead = look_ahead_pages(o, src, pairs, nl);
    const scan_args a{s.queries.data(), s.offsets.data(), s.pair_slot.data(), s.pair_begin.data(), s.chunk_begin.data(),
                      nl, d, np, k, per_item, index_.metric(), s.batches % 2 == 1, s.counters.data(),
                      s.counters.data() + 1, ahead, s.cand_key.data(), s.cand_row.data()};
    BAM_CUDA_TRY(cudaMemset(s.counters.data(), 0, 2 * sizeof(std::uint32_t)));
    const std::uint64_t items_bound = nl + ceil_div(pairs, per_item);
    const double scan_seconds = bam::detail::gpu_seconds(
        [&] { launch_scan(src, a, resident_blocks(src, per_item + (ahead > 0 ? 1 : 0), items_bound)); });
    merge_rows(s.cand_key.data(), s.cand_row.data(), nb, np * k, k, s.ids.data(), index_.metric(), nullptr,
               s.out_ids.data(), s.out_dist.data());
    s.out_ids.download({out.ids.data() + first * k, nb * k});
    s.out_dist.download({out.distances.data() + first * k, nb * k});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (on_batch) on_batch({s.batches, first, nb, seconds, upload_seconds, scan_seconds});
    ++s.batches;
  }
  return out;
}

}  // namespace bam::vec::gpu
