// SPDX-License-Identifier: Apache-2.0
// One series of the vector_search bench: the same IVF searcher over one list_source (VRAM, or
// bam with a cache of some size) for every nprobe, timed after a warm-up, with recall@10 and,
// for bam, the cache's hit rate per batch.
#pragma once

#include "apps/vector/gpu_search.hpp"

#include <bam/page_cache.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bam::bench::vector {

struct batch_profile {
  std::uint64_t batch = 0, queries = 0;
  double seconds = 0, upload_seconds = 0, scan_seconds = 0, hit_rate = 0;
  std::uint64_t misses = 0, bytes_read = 0;
  double io_p50_us = 0, io_p99_us = 0;  ///< NVMe command latency quantiles (histogram bucket bounds)
};

struct point {
  std::uint32_t nprobe = 0;
  double qps = 0, recall_at_10 = 0, median_seconds = 0;
  double upload_seconds = 0, scan_seconds = 0;  ///< summed over the batches of the median repetition
  std::vector<batch_profile> batches;  ///< of the last timed repetition (bam only)
};

struct series_plan {
  std::vector<std::uint32_t> nprobe;
  std::uint32_t k = 10;
  std::uint64_t batch = 0;  ///< queries per batch
  unsigned reps = 3;        ///< timed repetitions after one warm-up; the median counts
  bool prefetch_next = false;  ///< search_options::prefetch_next
  std::uint32_t look_ahead_pages = 0;  ///< search_options::look_ahead_pages
};

/**
 * @param cache the page cache behind `src` (null for VRAM): reset before each nprobe, read after
 * each batch, checked after each run
 */
std::vector<point> run_series(vec::gpu::ivf_searcher& searcher, const vec::gpu::list_source& src, page_cache* cache,
                              const vec::matrix<float>& queries, const vec::matrix<std::int64_t>& truth,
                              const series_plan& plan);

}  // namespace bam::bench::vector
