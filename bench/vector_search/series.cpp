// SPDX-License-Identifier: Apache-2.0
#include "bench/vector_search/series.hpp"

#include "apps/vector/recall.hpp"

#include <algorithm>
#include <cstdio>

namespace bam::bench::vector {

namespace {
/// The upper bound, in µs, of the histogram bucket (bucket b: [2^b, 2^(b+1)) ns) holding the
/// q-quantile of the commands counted in now - before; 0 when none were.
double latency_quantile_us(const std::vector<std::uint64_t>& now, const std::vector<std::uint64_t>& before, double q) {
  std::uint64_t total = 0;
  for (std::size_t b = 0; b < now.size(); ++b) total += now[b] - (b < before.size() ? before[b] : 0);
  if (total == 0) return 0;
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < now.size(); ++b) {
    seen += now[b] - (b < before.size() ? before[b] : 0);
    if (double(seen) >= q * double(total)) return double(std::uint64_t{2} << b) / 1000.0;
  }
  return double(std::uint64_t{2} << (now.size() - 1)) / 1000.0;
}
}  // namespace

std::vector<point> run_series(vec::gpu::ivf_searcher& searcher, const vec::gpu::list_source& src, page_cache* cache,
                              const vec::matrix<float>& queries, const vec::matrix<std::int64_t>& truth,
                              const series_plan& plan) {
  std::vector<point> out;
  for (const std::uint32_t nprobe : plan.nprobe) {
    point p;
    p.nprobe = nprobe;
    struct timing {
      double total = 0, upload = 0, scan = 0;
    };
    std::vector<timing> runs;
    vec::search_results last;
    for (unsigned rep = 0; rep <= plan.reps; ++rep) {  // rep 0 warms up
      if (cache) cache->reset_stats();
      std::vector<batch_profile> batches;
      cache::cache_stats before{};
      std::vector<std::uint64_t> latency_before = cache ? cache->latency_histogram() : std::vector<std::uint64_t>{};
      const auto on_batch = [&](const vec::gpu::batch_report& b) {
        batch_profile bp{b.index, b.queries, b.seconds, b.upload_seconds, b.scan_seconds};
        if (cache) {
          const auto now = cache->total_stats().counts;
          const std::uint64_t acc = now.accesses - before.accesses;
          const std::uint64_t hit = (now.hits - before.hits) + (now.coalesced - before.coalesced);
          bp.hit_rate = acc ? double(hit) / double(acc) : 0.0;
          bp.misses = now.misses - before.misses;
          bp.bytes_read = now.bytes_read - before.bytes_read;
          before = now;
          const auto latency = cache->latency_histogram();
          bp.io_p50_us = latency_quantile_us(latency, latency_before, 0.5);
          bp.io_p99_us = latency_quantile_us(latency, latency_before, 0.99);
          latency_before = latency;
        }
        batches.push_back(bp);
      };
      last = searcher.search(queries, {plan.k, nprobe, plan.prefetch_next, plan.look_ahead_pages}, src, plan.batch, on_batch);
      if (cache) cache->check();
      timing run;
      for (const auto& b : batches) {
        run.total += b.seconds;
        run.upload += b.upload_seconds;
        run.scan += b.scan_seconds;
      }
      if (rep > 0) runs.push_back(run);
      p.batches = std::move(batches);
    }
    std::sort(runs.begin(), runs.end(), [](const timing& a, const timing& b) { return a.total < b.total; });
    const timing& median = runs[runs.size() / 2];
    p.median_seconds = median.total;
    p.upload_seconds = median.upload;
    p.scan_seconds = median.scan;
    p.qps = double(queries.rows) / p.median_seconds;
    p.recall_at_10 = vec::recall_at(std::min(plan.k, 10u), last, truth);
    std::fprintf(stderr, "  nprobe %4u: %10.0f queries/s, recall@10 %.4f (upload %.2f ms, list scan %.2f ms)\n", nprobe,
                 p.qps, p.recall_at_10, p.upload_seconds * 1e3, p.scan_seconds * 1e3);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace bam::bench::vector
