// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/bfs.hpp"

#include "apps/graph/frontier.hpp"

namespace bam::graph {

template <class Id>
std::vector<std::uint32_t> bfs_depths(const csr_view<Id>& g, std::uint64_t source,
                                      unsigned threads) {
  check_source("BFS", source, g.num_vertices());
  std::vector<std::uint32_t> depth(g.num_vertices(), bfs_unreached);
  depth[source] = 0;
  std::vector<Id> frontier{static_cast<Id>(source)};
  for (std::uint32_t level = 0; !frontier.empty(); ++level) {
    frontier = advance_frontier(frontier, threads, [&](Id u, auto& push) {
      bfs_expand(g, u, level, std::span(depth), push);
    });
  }
  return depth;
}

template std::vector<std::uint32_t> bfs_depths(const csr_view<std::uint32_t>&, std::uint64_t,
                                               unsigned);
template std::vector<std::uint32_t> bfs_depths(const csr_view<std::uint64_t>&, std::uint64_t,
                                               unsigned);

}  // namespace bam::graph
