// SPDX-License-Identifier: Apache-2.0
// The steps of pull PageRank with GAP's semantics (Jacobi: contributions from the previous
// scores, then every vertex pulls), for GPU warps and CPU threads.
#pragma once

#include "apps/graph/gpu/graph_view.hpp"
#include "apps/graph/gpu/step_support.hpp"

#include <bam/config.hpp>
#include <bam/lane_group.hpp>

#include <cstdint>

namespace bam::graph::gpu {

/// Lane step: contrib[v] = score[v] / out_degree(v), 0 without out-edges.
struct pagerank_contrib {
  const std::uint64_t* offsets;
  const double* scores;
  double* contrib;

  BAM_HD step_totals operator()(std::uint64_t v) const {
    const std::uint64_t d = offsets[v + 1] - offsets[v];
    contrib[v] = d == 0 ? 0.0 : scores[v] / static_cast<double>(d);
    return {};
  }
};

/**
 * @brief Group step: scores[u] = base + damping * sum of contrib over u's list (its
 * in-neighbors: the graph is symmetric); reports |new - old| as the change.
 * @note Only u's group writes scores[u], and contrib is not written in this step.
 */
template <class Graph>
struct pagerank_pull_step {
  using id_type = typename Graph::id_type;
  Graph g;
  const double* contrib;
  double* scores;
  double base;
  double damping;

  template <lane_group Group>
  BAM_HD step_totals operator()(Group& grp, std::uint64_t u) const {
    step_totals t;
    double incoming = 0;
    const std::uint64_t n = g.degree(u);
    g.neighbors.scan(grp, g.begin(u), n, [&](std::uint64_t, id_type v) {
      incoming += contrib[v];
      return false;
    });
    incoming = group_sum(grp, incoming);
    if (grp.rank() == 0) {
      const double next = base + damping * incoming;
      t.change = next > scores[u] ? next - scores[u] : scores[u] - next;
      scores[u] = next;
      t.edges = n;
    }
    return t;
  }
};

}  // namespace bam::graph::gpu
