// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/cc.hpp"

#include <atomic>
#include <numeric>

#include "apps/common/parallel.hpp"

namespace bam::graph {

template <class Id>
std::vector<Id> connected_components(const csr_view<Id>& g, unsigned threads) {
  const std::uint64_t n = g.num_vertices();
  std::vector<Id> comp(n);
  std::iota(comp.begin(), comp.end(), Id{0});
  const std::span<Id> labels(comp);
  constexpr std::uint64_t grain = 1u << 12;
  for (bool changed = true; changed;) {
    std::atomic<bool> any{false};
    apps::parallel_for_ranges(n, grain, threads, [&](std::uint64_t a, std::uint64_t z, unsigned) {
      bool local = false;
      for (std::uint64_t u = a; u < z; ++u) {
        for (const Id v : g.neighbors_of(u)) local |= cc_hook(labels, static_cast<Id>(u), v);
      }
      if (local) any.store(true, std::memory_order_relaxed);
    });
    apps::parallel_for_ranges(n, grain, threads, [&](std::uint64_t a, std::uint64_t z, unsigned) {
      for (std::uint64_t x = a; x < z; ++x) cc_shortcut(labels, static_cast<Id>(x));
    });
    changed = any.load();
  }
  return comp;
}

template std::vector<std::uint32_t> connected_components(const csr_view<std::uint32_t>&, unsigned);
template std::vector<std::uint64_t> connected_components(const csr_view<std::uint64_t>&, unsigned);

}  // namespace bam::graph
