// SPDX-License-Identifier: Apache-2.0
// One algorithm on one system, timed and verified: the CPU peer (whose results are the truth the
// others are checked against) and the GPU kernels over any graph view.
#pragma once

#include "apps/graph/cpu_fast/thread_team.hpp"
#include "apps/graph/csr_view.hpp"
#include "apps/graph/gpu/runners.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bam::bench {

enum class algorithm { bfs, cc, pagerank, sssp };

/// "bfs", "cc", "pagerank", "sssp".
[[nodiscard]] const char* to_string(algorithm a);
/** @throw bam::invalid_argument naming the known algorithms. */
[[nodiscard]] algorithm parse_algorithm(std::string_view name);

/// The CPU peer's results on one graph: what every other system must reproduce.
struct truth {
  std::vector<std::uint32_t> sources;               ///< GAP's picks; BFS runs from each
  std::vector<std::vector<std::uint32_t>> depth;    ///< per source
  std::vector<std::uint32_t> component;             ///< smallest vertex of the component
  std::vector<float> scores;                        ///< PageRank after 20 iterations
  std::vector<std::uint64_t> distance;              ///< SSSP from sources[0]
};

struct measurement {
  double ms = 0;                ///< one run (BFS: the mean over the sources)
  std::uint64_t edges = 0;      ///< neighbor entries examined by one run (0: not counted)
  bool verified = false;
  std::string mismatch;         ///< the first difference, when not verified
};

/// PageRank agreement between systems: per vertex, |a - b| <= this * b. The CPU peer keeps
/// single-precision scores (2^-24 relative per store over 20 iterations).
inline constexpr double pagerank_tolerance = 1e-4;

/**
 * @brief Runs `a` with the CPU peer (apps/graph/cpu_fast) and stores its result in `t`.
 * @param check_reference also compare with the reference algorithms (apps/graph, checked
 *        against Boost): for small graphs, where the reference is quick.
 */
measurement run_cpu(const graph::csr_view<std::uint32_t>& g, algorithm a,
                    graph::cpu_fast::thread_team& team, truth& t, bool check_reference);

/**
 * @brief Runs `a` on the GPU over `g` (any view the runners are instantiated for) and checks
 *        the result against `t`. `options` go to the runners (engine, block size, callbacks).
 */
template <class View>
measurement run_gpu(const View& g, algorithm a, const truth& t,
                    const graph::gpu::run_options& options);

}  // namespace bam::bench
