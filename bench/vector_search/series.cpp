// SPDX-License-Identifier: Apache-2.0
#include "bench/vector_search/series.hpp"

#include "apps/vector/recall.hpp"

#include <algorithm>
#include <cstdio>

namespace bam::bench::vector {

std::vector<point> run_series(vec::gpu::ivf_searcher& searcher, const vec::gpu::list_source& src, page_cache* cache,
                              const vec::matrix<float>& queries, const vec::matrix<std::int64_t>& truth,
                              const series_plan& plan) {
  std::vector<point> out;
  for (const std::uint32_t nprobe : plan.nprobe) {
    point p;
    p.nprobe = nprobe;
    std::vector<double> seconds;
    vec::search_results last;
    for (unsigned rep = 0; rep <= plan.reps; ++rep) {  // rep 0 warms up
      if (cache) cache->reset_stats();
      std::vector<batch_profile> batches;
      cache::cache_stats before{};
      const auto on_batch = [&](const vec::gpu::batch_report& b) {
        batch_profile bp{b.index, b.queries, b.seconds};
        if (cache) {
          const auto now = cache->total_stats().counts;
          const std::uint64_t acc = now.accesses - before.accesses;
          const std::uint64_t hit = (now.hits - before.hits) + (now.coalesced - before.coalesced);
          bp.hit_rate = acc ? double(hit) / double(acc) : 0.0;
          bp.misses = now.misses - before.misses;
          bp.bytes_read = now.bytes_read - before.bytes_read;
          before = now;
        }
        batches.push_back(bp);
      };
      last = searcher.search(queries, {plan.k, nprobe}, src, plan.batch, on_batch);
      if (cache) cache->check();
      double total = 0;
      for (const auto& b : batches) total += b.seconds;
      if (rep > 0) seconds.push_back(total);
      p.batches = std::move(batches);
    }
    std::sort(seconds.begin(), seconds.end());
    p.median_seconds = seconds[seconds.size() / 2];
    p.qps = double(queries.rows) / p.median_seconds;
    p.recall_at_10 = vec::recall_at(std::min(plan.k, 10u), last, truth);
    std::fprintf(stderr, "  nprobe %4u: %10.0f queries/s, recall@10 %.4f\n", nprobe, p.qps, p.recall_at_10);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace bam::bench::vector
