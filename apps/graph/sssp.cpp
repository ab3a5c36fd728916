// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/sssp.hpp"

#include "apps/graph/error.hpp"
#include "apps/graph/frontier.hpp"

namespace bam::graph {

template <class Id>
std::vector<std::uint64_t> sssp_distances(const csr_view<Id>& g, std::uint64_t source,
                                          unsigned threads) {
  if (!g.weighted) throw graph_error("SSSP needs a weighted graph");
  check_source("SSSP", source, g.num_vertices());
  std::vector<std::uint64_t> dist(g.num_vertices(), sssp_unreached);
  std::vector<std::uint8_t> queued(g.num_vertices(), 0);
  dist[source] = 0;
  std::vector<Id> frontier{static_cast<Id>(source)};
  while (!frontier.empty()) {
    frontier = advance_frontier(frontier, threads, [&](Id u, auto& push) {
      sssp_relax(g, u, std::span(dist), std::span(queued), push);
    });
    for (const Id v : frontier) queued[v] = 0;
  }
  return dist;
}

template std::vector<std::uint64_t> sssp_distances(const csr_view<std::uint32_t>&, std::uint64_t,
                                                   unsigned);
template std::vector<std::uint64_t> sssp_distances(const csr_view<std::uint64_t>&, std::uint64_t,
                                                   unsigned);

}  // namespace bam::graph
