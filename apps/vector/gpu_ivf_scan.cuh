// SPDX-License-Identifier: Apache-2.0
// bam::vec::gpu: the list scan of an IVF batch. Blocks take work items from a counter; an item is
// one list and up to 8 (query, probe) pairs that chose it; scanning warp w owns pair w and walks
// the list in tiles of TV vectors: its lanes stride the dimensions, a transposed shuffle
// reduction leaves vector v's key in lane v, and the keys go into its group_topk; the pair's
// top k goes to its slot of the candidate buffer for the merge. Tiles are staged in shared
// memory. From VRAM the scanning warps load each tile themselves (each a contiguous eighth).
// Through bam, four loader warps prefetch the list (the reads of its missing pages go out
// together) and then fill two tile buffers in turn with array::read_range (one page pin per
// warp at a time) while the scanning warps score the other buffer, so the cache's lookup and
// pin latency hides behind compute. An optional look-ahead warp prefetches the list of the
// block's next item meanwhile. nvcc only.
#pragma once

#include "apps/vector/gpu_search.hpp"
#include "apps/vector/metric.hpp"
#include "apps/vector/rows_view.hpp"

#include <cstdint>

namespace bam::vec::gpu {

/// Pairs (and warps) per block.
inline constexpr unsigned scan_queries = 8;

struct scan_args {
  const float* queries;                    ///< this batch's queries, nq x dim
  const std::uint64_t* list_offsets;       ///< n_lists + 1 rows
  const std::uint32_t* pair_slot;          ///< pairs grouped by list; slot = query * nprobe + probe
  const std::uint32_t* list_pair_begin;    ///< n_lists + 1: the pairs of list l
  const std::uint32_t* list_chunk_begin;   ///< n_lists + 1: the work items of list l
  std::uint32_t n_lists, dim, nprobe, k;
  metric m;
  bool reverse;                            ///< take work items last list first
  bool prefetch_next;                      ///< a look-ahead warp prefetches the block's next item's list
  std::uint32_t* next_item;                ///< the work-item counter blocks take items from; 0 at launch
  float* out_key;                          ///< nq * nprobe * k candidate keys
  std::int64_t* out_row;                   ///< and their rows (-1: none)
};

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
