// SPDX-License-Identifier: Apache-2.0
// The host loop of Afforest over any executor: two sampled neighbors per vertex, the most frequent label
// from 1024 samples, the remaining edges, and the final compression (GAP's cc.cc).
#pragma once

#include "apps/graph/gap_random.hpp"
#include "apps/graph/gpu/cc_steps.hpp"
#include "apps/graph/gpu/driver_support.hpp"

#include <random>
#include <unordered_map>
#include <vector>

namespace bam::graph::gpu {

/// GAP's Afforest parameters: neighbors linked per vertex before sampling, and samples taken.
inline constexpr std::uint64_t afforest_rounds = 2;
inline constexpr std::uint64_t afforest_samples = 1024;

template <class Exec, class Graph>
cc_result<typename Graph::id_type> cc_driver(Exec& ex, const Graph& g, const run_options& o) {
  using Id = typename Graph::id_type;
  const std::uint64_t n = g.num_vertices;
  auto comp = ex.template make<Id>(n);
  auto at = ex.template make<std::uint64_t>(afforest_samples);
  auto samples = ex.template make<Id>(afforest_samples);
  step_log log(o);
  ex.for_lanes(n, 0, iota_step<Id>{comp.data()});
  // Every lane reads its own vertex's neighbors through the cache: up to 32 pins per warp.
  log.step("sample-link", n, ex.for_lanes(n, 32, afforest_sample_link<Graph>{g, comp.data(), afforest_rounds}));
  log.step("compress", n, ex.for_lanes(n, 0, afforest_compress<Id>{comp.data()}));
  std::uint64_t skip = n;  // no vertex has this label: nothing skipped
  if (g.symmetric && n > 0) {
    std::mt19937 engine(static_cast<std::mt19937::result_type>(gap::seed));
    std::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
    std::vector<std::uint64_t> where(afforest_samples);
    for (auto& w : where) w = pick(engine);
    at.upload(std::span<const std::uint64_t>(where));
    ex.for_lanes(afforest_samples, 0, gather_labels<Id>{comp.data(), at.data(), samples.data()});
    std::unordered_map<Id, std::uint64_t> count;
    std::uint64_t best = 0;
    for (const Id label : to_vector(samples)) {
      if (++count[label] > best) best = count[label], skip = label;
    }
    log.step("sample", afforest_samples, {});
  }
  log.step("link", n, ex.for_groups(n, 1, afforest_link_rest<Graph>{g, comp.data(), afforest_rounds, skip}));
  log.step("compress", n, ex.for_lanes(n, 0, afforest_compress<Id>{comp.data()}));
  cc_result<Id> r;
  r.seconds = log.seconds();
  r.edges_examined = log.edges();
  r.component = to_vector(comp);
  return r;
}

}  // namespace bam::graph::gpu
