// SPDX-License-Identifier: Apache-2.0
// The host loop of pull PageRank over any executor: contributions, then every vertex pulls,
// for a fixed number of iterations (or until the L1 change drops below a tolerance).
#pragma once

#include "apps/graph/gpu/driver_support.hpp"
#include "apps/graph/gpu/pagerank_steps.hpp"

namespace bam::graph::gpu {

template <class Exec, class Graph>
pagerank_run pagerank_driver(Exec& ex, const Graph& g, const pagerank_options& o) {
  if (!g.symmetric) throw graph_error("PageRank pulls over the stored lists: it needs a symmetric graph");
  const std::uint64_t n = g.num_vertices;
  pagerank_run r;
  if (n == 0) return r;
  auto scores = ex.template make<double>(n);
  auto contrib = ex.template make<double>(n);
  step_log log(o);
  const double base = (1.0 - o.damping) / static_cast<double>(n);
  ex.for_lanes(n, 0, fill_step<double>{scores.data(), 1.0 / static_cast<double>(n)});
  while (r.iterations < o.iterations) {
    ex.for_lanes(n, 0, pagerank_contrib{g.offsets, scores.data(), contrib.data()});
    const step_totals t =
        ex.for_groups(n, 1, pagerank_pull_step<Graph>{g, contrib.data(), scores.data(), base, o.damping});
    log.step("pull", n, t);
    ++r.iterations;
    r.change = t.change;
    if (o.tolerance > 0 && r.change < o.tolerance) break;
  }
  r.seconds = log.seconds();
  r.edges_examined = log.edges();
  r.scores = to_vector(scores);
  return r;
}

}  // namespace bam::graph::gpu
