// SPDX-License-Identifier: Apache-2.0
// The host loop of delta-stepping SSSP over any executor: relax the current bucket's frontier
// round by round until it stays empty (vertices lowered to later buckets collect in the far
// list), then take the far list's smallest pending bucket as the next one, move its vertices
// into the frontier and compact the rest; stop when the far list has nothing pending.
#pragma once

#include "apps/graph/gpu/driver_support.hpp"
#include "apps/graph/gpu/sssp_steps.hpp"

#include <utility>

namespace bam::graph::gpu {

template <class Exec, class Graph>
sssp_result sssp_driver(Exec& ex, const Graph& g, std::uint64_t source, const sssp_options& o) {
  using Id = typename Graph::id_type;
  if (!g.weighted()) throw graph_error("SSSP needs a weighted graph");
  if (o.delta == 0) throw graph_error("SSSP delta (the bucket width) must be at least 1, not 0");
  check_run_source("SSSP", source, g.num_vertices);
  const std::uint64_t n = g.num_vertices;
  auto dist = ex.template make<std::uint64_t>(n);
  auto queued = ex.template make<std::uint32_t>(n);
  auto far_listed = ex.template make<std::uint32_t>(n);
  auto queue = ex.template make<Id>(n);
  auto next = ex.template make<Id>(n);
  auto far = ex.template make<Id>(n);
  auto size = ex.template make<std::uint64_t>(1);
  auto far_size = ex.template make<std::uint64_t>(1);
  auto least = ex.template make<std::uint64_t>(1);
  step_log log(o);
  ex.for_lanes(n, 0, fill_step<std::uint64_t>{dist.data(), sssp_unreached});
  ex.for_lanes(n, 0, fill_step<std::uint32_t>{queued.data(), 0});
  ex.for_lanes(n, 0, fill_step<std::uint32_t>{far_listed.data(), 0});
  put(dist, source, 0);
  put(queue, 0, static_cast<Id>(source));
  put(far_size, 0, 0);
  sssp_result r;
  std::uint64_t frontier = 1;
  for (std::uint64_t bucket = 0;;) {
    const std::uint64_t end = sssp_bucket_end(bucket, o.delta);
    for (; frontier > 0; ++r.rounds) {
      put(size, 0, 0);
      // A warp pins its neighbor page and reads the weights beside it (one or two more pages).
      const step_totals t = ex.for_groups(frontier, 3,
                                          sssp_relax_step<Graph>{g, dist.data(), queued.data(), far_listed.data(),
                                                                 queue.data(), next.data(), size.data(), far.data(),
                                                                 far_size.data(), end});
      log.step("relax", frontier, t);
      frontier = fetch_at(size, 0);
      ex.for_lanes(frontier, 0, sssp_unqueue<Id>{next.data(), queued.data()});
      std::swap(queue, next);
    }
    ++r.buckets;
    const std::uint64_t far_count = fetch_at(far_size, 0);
    if (far_count == 0) break;
    put(least, 0, sssp_unreached);
    ex.for_lanes(far_count, 0, sssp_far_min<Id>{dist.data(), far.data(), end, least.data()});
    const std::uint64_t pending = fetch_at(least, 0);
    if (pending == sssp_unreached) break;  // every entry left is stale
    bucket = pending / o.delta;
    put(size, 0, 0);
    put(far_size, 0, 0);
    // The bucket's vertices go to the (empty) queue; the rest are compacted into `next`, which
    // becomes the far list.
    const step_totals t = ex.for_lanes(
        far_count, 0,
        sssp_far_split<Id>{dist.data(), far.data(), bucket * o.delta, sssp_bucket_end(bucket, o.delta), queue.data(),
                           size.data(), next.data(), far_size.data()});
    log.step("bucket", far_count, t);
    frontier = fetch_at(size, 0);
    std::swap(far, next);
  }
  r.seconds = log.seconds();
  r.edges_examined = log.edges();
  r.distance = to_vector(dist);
  return r;
}

}  // namespace bam::graph::gpu
