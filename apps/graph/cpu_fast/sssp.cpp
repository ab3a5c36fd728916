// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/cpu_fast/sssp.hpp"

#include <algorithm>
#include <atomic>
#include <span>

#include "apps/graph/error.hpp"
#include "apps/graph/frontier.hpp"
#include "apps/graph/sssp.hpp"

namespace bam::graph::cpu_fast {
namespace {

/// Marks "no bin" in the minimum over members.
constexpr std::uint64_t no_bin = ~std::uint64_t{0};

/**
 * @brief Lowers dist[v] to dist[u] + w for every out-edge of u where that is shorter, and puts
 *        each lowered v into the bin of its new distance.
 * @note Relaxed loads and CAS: only the per-word order matters; bins are published to the other
 *       members through the collectives' barriers.
 */
template <class Id>
void relax(const csr_view<Id>& g, Id u, std::span<std::uint64_t> dist, std::uint64_t delta,
           std::vector<std::vector<Id>>& bins) {
  const std::uint64_t du = std::atomic_ref(dist[u]).load(std::memory_order_relaxed);
  const auto nbrs = g.neighbors_of(u);
  const auto wts = g.weights_of(u);
  for (std::size_t i = 0; i < nbrs.size(); ++i) {
    const std::uint64_t candidate = du + wts[i];
    std::atomic_ref<std::uint64_t> dv(dist[nbrs[i]]);
    for (std::uint64_t seen = dv.load(std::memory_order_relaxed); candidate < seen;) {
      if (dv.compare_exchange_weak(seen, candidate, std::memory_order_relaxed)) {
        const std::uint64_t bin = candidate / delta;
        if (bin >= bins.size()) bins.resize(bin + 1);
        bins[bin].push_back(nbrs[i]);
        break;
      }
    }
  }
}

}  // namespace

template <class Id>
std::vector<std::uint64_t> sssp(const csr_view<Id>& g, std::uint64_t source, thread_team& team,
                                const sssp_options& options) {
  if (!g.weighted) throw graph_error("SSSP needs a weighted graph");
  if (options.delta == 0) throw graph_error("SSSP: delta must be at least 1");
  check_source("SSSP", source, g.num_vertices());
  std::vector<std::uint64_t> dist(g.num_vertices(), sssp_unreached);
  dist[source] = 0;
  std::vector<Id> frontier{static_cast<Id>(source)};  // the current bin's vertices, all members'
  const std::uint64_t delta = options.delta;
  team.run([&](team_member& m) {
    std::vector<std::vector<Id>> bins;
    std::uint64_t bin = 0;
    std::uint64_t size = 1;
    for (;;) {
      m.for_ranges(size, 64, [&](std::uint64_t a, std::uint64_t z) {
        for (std::uint64_t i = a; i < z; ++i) {
          const Id u = frontier[i];
          // An entry whose distance fell below this bin was settled in an earlier one.
          if (std::atomic_ref(dist[u]).load(std::memory_order_relaxed) >= delta * bin) {
            relax(g, u, std::span(dist), delta, bins);
          }
        }
      });
      while (bin < bins.size() && !bins[bin].empty()) {
        const std::vector<Id> current = std::move(bins[bin]);
        bins[bin].clear();
        for (const Id u : current) relax(g, u, std::span(dist), delta, bins);
      }
      std::uint64_t mine = no_bin;
      for (std::uint64_t b = bin; b < bins.size(); ++b) {
        if (!bins[b].empty()) {
          mine = b;
          break;
        }
      }
      const std::uint64_t next = m.min(mine);
      if (next == no_bin) break;  // every member sees the same minimum
      std::vector<Id> empty;
      std::vector<Id>& part = next < bins.size() ? bins[next] : empty;
      const auto [offset, total] = m.scan(part.size());
      // Nobody reads the frontier between the relaxing loop's barrier and the one below.
      if (m.rank() == 0 && total > frontier.size()) frontier.resize(total);
      m.barrier();
      std::copy(part.begin(), part.end(), frontier.begin() + static_cast<std::ptrdiff_t>(offset));
      part.clear();
      bin = next;
      size = total;
      m.barrier();  // the whole frontier is written before the next loop reads it
    }
  });
  return dist;
}

template std::vector<std::uint64_t> sssp(const csr_view<std::uint32_t>&, std::uint64_t,
                                         thread_team&, const sssp_options&);
template std::vector<std::uint64_t> sssp(const csr_view<std::uint64_t>&, std::uint64_t,
                                         thread_team&, const sssp_options&);

}  // namespace bam::graph::cpu_fast
