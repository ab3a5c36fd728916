// SPDX-License-Identifier: Apache-2.0
// bam::vec::gpu: the list scan of an IVF batch. Blocks take work items from a counter; an item is
// one list and up to queries_per_item (query, probe) pairs that chose it; scanning warp w owns
// pair w. First each scanning warp prefetches its share of the list (bam: the reads of missing pages
// go out together; a no-op in memory), while an optional extra, look-ahead warp keeps reads a
// bounded distance ahead of the scan (read_ahead). Then the scanning warps walk the list in
// tiles of TV vectors: the warps copy the tile with store.read_range, a page piece or an equal
// share each (bam: one page pin per warp at a time), then each warp computes its query's
// keys for the tile (lanes stride the dimensions; a transposed shuffle reduction leaves vector v's
// key in lane v) and pushes them into its group_topk. The pair's top-k goes to its slot of the
// candidate buffer for the merge. nvcc only.
#pragma once

#include "apps/vector/gpu_search.hpp"
#include "apps/vector/metric.hpp"
#include "apps/vector/rows_view.hpp"

#include <cstdint>

namespace bam::vec::gpu {

/// Pairs (and scanning warps) per block: a work item holds up to this many (query, probe)
/// pairs. Each tile a block copies serves them all, so through bam it sets the page pins per
/// query: on the H200 (Fashion-MNIST, nprobe 8) 16 against 8 took the all-resident scan from
/// 3.7 to 3.4 ms and the 25% cache with look-ahead from 5.4 to 4.9 ms, and left the scan from
/// VRAM unchanged (2.0 ms). Where 16 queries' shared memory does not fit a block (large
/// dimensions with large k), items hold 8.
inline constexpr unsigned scan_queries_max = 16;
inline constexpr unsigned scan_queries_min = 8;

struct scan_args {
  const float* queries;                    ///< this batch's queries, nq x dim
  const std::uint64_t* list_offsets;       ///< n_lists + 1 rows
  const std::uint32_t* pair_slot;          ///< pairs grouped by list; slot = query * nprobe + probe
  const std::uint32_t* list_pair_begin;    ///< n_lists + 1: the pairs of list l
  const std::uint32_t* list_chunk_begin;   ///< n_lists + 1: the work items of list l
  std::uint32_t n_lists, dim, nprobe, k;
  std::uint32_t queries_per_item;          ///< scan_queries_per_item: pairs per work item
  metric m;
  bool reverse;                            ///< take work items last list first
  std::uint32_t* next_item;                ///< the work-item counter blocks take items from; 0 at launch
  std::uint32_t* ahead_chunk;              ///< the look-ahead warps' chunk counter; 0 at launch
  std::uint32_t ahead_pages;               ///< pages a look-ahead warp per block reads ahead; 0: none
  float* out_key;                          ///< nq * nprobe * k candidate keys
  std::int64_t* out_row;                   ///< and their rows (-1: none)
};

/**
 * @brief Pairs per work item for a scan of `src` at dimension `dim` and `k`: scan_queries_max
 * when that many queries, a tile and their top-k fit a block's shared memory, else
 * scan_queries_min (the launch then checks that fit, naming dimension and k if it fails).
 */
std::uint32_t scan_queries_per_item(const list_source& src, std::uint32_t dim, std::uint32_t k);

/**
 * @brief Launches the scan over `src` with `blocks` blocks (they stride over the work items,
 * whose count the kernel reads from list_chunk_begin[n_lists]).
 * @throw bam::invalid_argument when the dimension needs more shared memory than a block has
 */
void launch_scan(const list_source& src, const scan_args& a, std::uint64_t blocks);

/// launch_scan for one element type, from VRAM or through bam (gpu_ivf_scan_<type>.cu).
void launch_scan_typed(const rows_view<float>& vram, const scan_args& a, std::uint64_t blocks);
void launch_scan_typed(const array<float>& cached, const scan_args& a, std::uint64_t blocks);
void launch_scan_typed(const rows_view<half>& vram, const scan_args& a, std::uint64_t blocks);
void launch_scan_typed(const array<half>& cached, const scan_args& a, std::uint64_t blocks);
void launch_scan_typed(const rows_view<std::uint8_t>& vram, const scan_args& a, std::uint64_t blocks);
void launch_scan_typed(const array<std::uint8_t>& cached, const scan_args& a, std::uint64_t blocks);

}  // namespace bam::vec::gpu
