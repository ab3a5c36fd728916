// SPDX-License-Identifier: Apache-2.0
// The host loop of direction-optimizing BFS, over any executor (GPU kernels or CPU threads):
// GAP's switching rule between top-down steps over a queue and bottom-up steps over all vertices.
#pragma once

#include "apps/graph/gpu/bfs_steps.hpp"
#include "apps/graph/gpu/driver_support.hpp"

#include <utility>

namespace bam::graph::gpu {

template <class Exec, class Graph>
bfs_result bfs_driver(Exec& ex, const Graph& g, std::uint64_t source, const bfs_options& o) {
  using Id = typename Graph::id_type;
  check_run_source("BFS", source, g.num_vertices);
  const std::uint64_t n = g.num_vertices;
  auto depth = ex.template make<std::uint32_t>(n);
  auto queue = ex.template make<Id>(n);
  auto next = ex.template make<Id>(n);
  auto size = ex.template make<std::uint64_t>(1);
  step_log log(o);
  ex.for_lanes(n, 0, fill_step<std::uint32_t>{depth.data(), bfs_unreached});
  put(depth, source, 0);
  put(queue, 0, static_cast<Id>(source));
  std::uint64_t frontier = 1;
  std::uint64_t edges_to_check = g.num_edges;
  std::uint64_t scout = ex.fetch(g.offsets + source + 1) - ex.fetch(g.offsets + source);
  for (std::uint32_t level = 0; frontier > 0;) {
    if (g.symmetric && scout > edges_to_check / o.alpha) {
      // Bottom-up while the frontier grows or stays large (GAP's rule).
      std::uint64_t awake = frontier, old_awake = 0;
      do {
        old_awake = awake;
        const step_totals t = ex.for_groups(n, 1, bfs_bottom_up<Graph>{g, depth.data(), level});
        awake = t.vertices;
        log.step("bottom-up", old_awake, t);
        ++level;
      } while (awake > 0 && (awake >= old_awake || awake > n / o.beta));
      put(size, 0, 0);
      log.step("to-queue", awake, ex.for_lanes(n, 0, bfs_collect<Id>{depth.data(), level, queue.data(), size.data()}));
      frontier = fetch_at(size, 0);
      scout = 1;
    } else {
      edges_to_check -= scout < edges_to_check ? scout : edges_to_check;
      put(size, 0, 0);
      const step_totals t = ex.for_groups(
          frontier, 1, bfs_top_down<Graph>{g, depth.data(), queue.data(), next.data(), size.data(), level});
      log.step("top-down", frontier, t);
      scout = t.degrees;
      frontier = fetch_at(size, 0);
      std::swap(queue, next);
      ++level;
    }
  }
  bfs_result r;
  r.seconds = log.seconds();
  r.edges_examined = log.edges();
  r.depth = to_vector(depth);
  for (const std::uint32_t d : r.depth) {
    if (d != bfs_unreached && d + 1 > r.levels) r.levels = d + 1;
  }
  return r;
}

}  // namespace bam::graph::gpu
