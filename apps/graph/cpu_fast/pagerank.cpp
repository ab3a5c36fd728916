// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/cpu_fast/pagerank.hpp"

#include <cmath>

#include "apps/graph/error.hpp"

namespace bam::graph::cpu_fast {

template <class Id>
pagerank_scores pagerank(const csr_view<Id>& g, thread_team& team,
                         const pagerank_options& options) {
  if (!g.symmetric) {
    throw graph_error("the multi-threaded PageRank pulls along a vertex's own neighbor lists and "
                      "needs a symmetric graph");
  }
  const std::uint64_t n = g.num_vertices();
  pagerank_scores result;
  if (n == 0) return result;
  constexpr std::uint64_t grain = 1u << 12;
  const double base = (1.0 - options.damping) / static_cast<double>(n);
  result.scores.assign(n, static_cast<float>(1.0 / static_cast<double>(n)));
  std::vector<float> contrib(n);
  std::vector<float>& scores = result.scores;
  team.run([&](team_member& m) {
    for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
      m.for_ranges(n, grain, [&](std::uint64_t a, std::uint64_t z) {
        for (std::uint64_t v = a; v < z; ++v) {
          const std::uint64_t d = g.degree(v);
          contrib[v] = d == 0 ? 0.0f : scores[v] / static_cast<float>(d);
        }
      });
      double change = 0;
      m.for_ranges(n, grain, [&](std::uint64_t a, std::uint64_t z) {
        for (std::uint64_t u = a; u < z; ++u) {
          double incoming = 0;
          for (const Id v : g.neighbors_of(u)) incoming += contrib[v];
          const auto next = static_cast<float>(base + options.damping * incoming);
          change += std::fabs(static_cast<double>(next) - static_cast<double>(scores[u]));
          scores[u] = next;  // contrib holds this iteration's inputs: Jacobi, not Gauss-Seidel
        }
      });
      change = m.sum(change);
      if (m.rank() == 0) {
        result.iterations = iteration + 1;
        result.change = change;
      }
      if (change < options.tolerance) break;  // every member sees the same total
    }
  });
  return result;
}

template pagerank_scores pagerank(const csr_view<std::uint32_t>&, thread_team&,
                                  const pagerank_options&);
template pagerank_scores pagerank(const csr_view<std::uint64_t>&, thread_team&,
                                  const pagerank_options&);

}  // namespace bam::graph::cpu_fast
