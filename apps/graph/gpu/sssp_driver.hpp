// SPDX-License-Identifier: Apache-2.0
// The host loop of frontier Bellman-Ford SSSP over any executor: relax the frontier's edges,
// clear the new frontier's queued words, repeat until no distance drops.
#pragma once

#include "apps/graph/gpu/driver_support.hpp"
#include "apps/graph/gpu/sssp_steps.hpp"

#include <utility>

namespace bam::graph::gpu {

template <class Exec, class Graph>
sssp_result sssp_driver(Exec& ex, const Graph& g, std::uint64_t source, const run_options& o) {
  using Id = typename Graph::id_type;
  if (!g.weighted()) throw graph_error("SSSP needs a weighted graph");
  check_run_source("SSSP", source, g.num_vertices);
  const std::uint64_t n = g.num_vertices;
  auto dist = ex.template make<std::uint64_t>(n);
  auto queued = ex.template make<std::uint32_t>(n);
  auto queue = ex.template make<Id>(n);
  auto next = ex.template make<Id>(n);
  auto size = ex.template make<std::uint64_t>(1);
  step_log log(o);
  ex.for_lanes(n, 0, fill_step<std::uint64_t>{dist.data(), sssp_unreached});
  ex.for_lanes(n, 0, fill_step<std::uint32_t>{queued.data(), 0});
  put(dist, source, 0);
  put(queue, 0, static_cast<Id>(source));
  sssp_result r;
  for (std::uint64_t frontier = 1; frontier > 0; ++r.rounds) {
    put(size, 0, 0);
    // A warp pins its neighbor page and reads the weights beside it (one or two more pages).
    const step_totals t = ex.for_groups(
        frontier, 3, sssp_relax_step<Graph>{g, dist.data(), queued.data(), queue.data(), next.data(), size.data()});
    log.step("relax", frontier, t);
    frontier = fetch_at(size, 0);
    ex.for_lanes(frontier, 0, sssp_unqueue<Id>{next.data(), queued.data()});
    std::swap(queue, next);
  }
  r.seconds = log.seconds();
  r.edges_examined = log.edges();
  r.distance = to_vector(dist);
  return r;
}

}  // namespace bam::graph::gpu
