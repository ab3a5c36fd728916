// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/pagerank.hpp"

#include <cmath>
#include <numeric>
#include <optional>

#include "apps/common/parallel.hpp"

namespace bam::graph {
namespace {

/// In-neighbor lists of a directed graph, each sorted (filled in increasing source order).
template <class Id>
struct transposed {
  std::vector<std::uint64_t> offsets;
  std::vector<Id> sources;

  explicit transposed(const csr_view<Id>& g)
      : offsets(g.num_vertices() + 1, 0), sources(g.num_edges()) {
    for (const Id v : g.neighbors) ++offsets[v + 1];
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    std::vector<std::uint64_t> cursor(offsets.begin(), offsets.end() - 1);
    for (std::uint64_t u = 0; u < g.num_vertices(); ++u) {
      for (const Id v : g.neighbors_of(u)) sources[cursor[v]++] = static_cast<Id>(u);
    }
  }
  [[nodiscard]] csr_view<Id> view() const { return {offsets, sources, {}, false, false}; }
};

}  // namespace

template <class Id>
pagerank_result pagerank(const csr_view<Id>& g, const pagerank_options& options, unsigned threads) {
  const std::uint64_t n = g.num_vertices();
  pagerank_result result;
  if (n == 0) return result;
  std::optional<transposed<Id>> transpose;
  if (!g.symmetric) transpose.emplace(g);
  const csr_view<Id> in = g.symmetric ? g : transpose->view();

  const double base = (1.0 - options.damping) / static_cast<double>(n);
  std::vector<double> scores(n, 1.0 / static_cast<double>(n));
  std::vector<double> next(n);
  std::vector<double> contrib(n);
  constexpr std::uint64_t grain = 1u << 14;
  std::vector<double> range_change((n + grain - 1) / grain);
  while (result.iterations < options.max_iterations) {
    apps::parallel_for_ranges(n, grain, threads, [&](std::uint64_t a, std::uint64_t z, unsigned) {
      for (std::uint64_t v = a; v < z; ++v) {
        const std::uint64_t d = g.degree(v);
        contrib[v] = d == 0 ? 0.0 : scores[v] / static_cast<double>(d);
      }
    });
    apps::parallel_for_ranges(n, grain, threads, [&](std::uint64_t a, std::uint64_t z, unsigned) {
      double change = 0;
      for (std::uint64_t u = a; u < z; ++u) {
        next[u] = pagerank_pull(in, static_cast<Id>(u), std::span<const double>(contrib), base,
                                options.damping);
        change += std::fabs(next[u] - scores[u]);
      }
      range_change[a / grain] = change;
    });
    scores.swap(next);
    ++result.iterations;
    result.change = std::accumulate(range_change.begin(), range_change.end(), 0.0);
    if (result.change < options.tolerance) break;
  }
  result.scores = std::move(scores);
  return result;
}

template pagerank_result pagerank(const csr_view<std::uint32_t>&, const pagerank_options&,
                                  unsigned);
template pagerank_result pagerank(const csr_view<std::uint64_t>&, const pagerank_options&,
                                  unsigned);

}  // namespace bam::graph
