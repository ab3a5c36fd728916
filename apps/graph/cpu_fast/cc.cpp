// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/cpu_fast/cc.hpp"

#include <atomic>
#include <numeric>
#include <random>
#include <span>
#include <unordered_map>

namespace bam::graph::cpu_fast {
namespace {

constexpr std::uint64_t grain = 1u << 12;

template <class Id>
Id load(std::span<Id> comp, Id x) {
  return std::atomic_ref(comp[x]).load(std::memory_order_relaxed);
}

/**
 * @brief Joins the trees of u and v: the larger of two roots is pointed at the smaller one.
 * @note Lock-free (Afforest's link): a root is changed only by a CAS that expects it to still be
 *       a root, so concurrent links never detach a subtree; relaxed, as labels only ever move to
 *       smaller vertices of the same component and the region's end publishes them.
 */
template <class Id>
void link(std::span<Id> comp, Id u, Id v) {
  Id p1 = load(comp, u);
  Id p2 = load(comp, v);
  while (p1 != p2) {
    const Id high = p1 > p2 ? p1 : p2;
    const Id low = p1 + p2 - high;
    Id p_high = load(comp, high);
    if (p_high == low) break;  // already joined
    if (p_high == high && std::atomic_ref(comp[high]).compare_exchange_strong(
                              p_high, low, std::memory_order_relaxed)) {
      break;
    }
    p1 = load(comp, load(comp, high));
    p2 = load(comp, low);
  }
}

/** @brief Points every vertex straight at its root. */
template <class Id>
void compress(std::span<Id> comp, team_member& m) {
  m.for_ranges(comp.size(), grain, [&](std::uint64_t a, std::uint64_t z) {
    for (std::uint64_t x = a; x < z; ++x) {
      const Id self = static_cast<Id>(x);
      while (load(comp, self) != load(comp, load(comp, self))) {
        std::atomic_ref(comp[x]).store(load(comp, load(comp, self)), std::memory_order_relaxed);
      }
    }
  });
}

/** @brief The label seen most often among `samples` random vertices (ties: any). */
template <class Id>
Id most_frequent_label(std::span<const Id> comp, std::uint32_t samples) {
  std::unordered_map<Id, std::uint32_t> counts;
  std::mt19937 rng(27491095);
  std::uniform_int_distribution<std::uint64_t> pick(0, comp.size() - 1);
  for (std::uint32_t i = 0; i < samples; ++i) ++counts[comp[pick(rng)]];
  return std::max_element(counts.begin(), counts.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

}  // namespace

template <class Id>
std::vector<Id> connected_components(const csr_view<Id>& g, thread_team& team,
                                     const cc_options& options) {
  const std::uint64_t n = g.num_vertices();
  std::vector<Id> labels(n);
  if (n == 0) return labels;
  const std::span<Id> comp(labels);
  team.run([&](team_member& m) {
    m.for_ranges(n, grain, [&](std::uint64_t a, std::uint64_t z) {
      for (std::uint64_t x = a; x < z; ++x) comp[x] = static_cast<Id>(x);
    });
    for (std::uint32_t r = 0; r < options.neighbor_rounds; ++r) {
      m.for_ranges(n, grain, [&](std::uint64_t a, std::uint64_t z) {
        for (std::uint64_t u = a; u < z; ++u) {
          if (r < g.degree(u)) link(comp, static_cast<Id>(u), g.neighbors[g.offsets[u] + r]);
        }
      });
      compress(comp, m);
    }
  });
  const Id largest = g.symmetric ? most_frequent_label(std::span<const Id>(comp), options.samples)
                                 : static_cast<Id>(n);  // no vertex: nothing is skipped
  team.run([&](team_member& m) {
    m.for_ranges(n, grain, [&](std::uint64_t a, std::uint64_t z) {
      for (std::uint64_t u = a; u < z; ++u) {
        if (load(comp, static_cast<Id>(u)) == largest) continue;
        const auto nbrs = g.neighbors_of(u);
        for (std::uint64_t i = options.neighbor_rounds; i < nbrs.size(); ++i) {
          link(comp, static_cast<Id>(u), nbrs[i]);
        }
      }
    });
    compress(comp, m);
  });
  return labels;
}

template std::vector<std::uint32_t> connected_components(const csr_view<std::uint32_t>&,
                                                         thread_team&, const cc_options&);
template std::vector<std::uint64_t> connected_components(const csr_view<std::uint64_t>&,
                                                         thread_team&, const cc_options&);

}  // namespace bam::graph::cpu_fast
