// SPDX-License-Identifier: Apache-2.0
// Builds a CSR file from any edge_source without holding the edge list: degrees are counted in
// one pass, then vertex ranges ("buckets") that fit the memory budget are filled by replaying
// the source, cleaned the way GAP cleans a graph, and streamed to the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>

#include "apps/graph/csr_format.hpp"
#include "apps/graph/edge_source.hpp"

namespace bam::graph {

/// Where the output weights come from.
enum class weight_policy {
  keep,  ///< the source's own weights when it has them, else unweighted
  gap,   ///< GAP's uniform 1..255 weights by edge index (gap::weight_sequence), source's ignored
  none,  ///< unweighted
};

/// Reported while building; `done` of `total` units of `phase`.
struct build_progress {
  std::string_view phase;
  std::uint64_t done;
  std::uint64_t total;
};

struct build_options {
  bool symmetrize = false;  ///< also add (v, u) for every (u, v): an undirected graph
  weight_policy weights = weight_policy::keep;
  std::uint64_t memory_budget_bytes = 0;  ///< for one bucket's edges; 0 = half of physical RAM
  unsigned threads = 0;                   ///< 0 = apps::default_thread_count()
  std::uint32_t id_bytes = 0;             ///< 0 = narrowest that fits; 8 may be forced
  /// Called from worker threads, one call at a time; may be empty.
  std::function<void(const build_progress&)> progress;
};

struct build_result {
  csr_header header;          ///< as written
  std::uint64_t input_edges;  ///< edges the source produced (before symmetrizing and cleaning)
  std::uint64_t buckets;      ///< vertex ranges built one after another (1 when all fit)
};

/**
 * @brief Writes the CSR file of `source` to `out`.
 * @note Cleaning follows GAP's builder (SquishCSR): self-loops dropped, each vertex's neighbors
 *       sorted, duplicate neighbors merged keeping the smallest weight. The vertex count is
 *       source.declared_vertices(), else the largest id + 1 (0 for no edges), as in GAP.
 *       The source is read 1 + buckets times (2 + buckets without an id_bound()).
 * @throw parse_error from the source, graph_error / io_error naming `out` on failure; `out` is
 *        then left as it was.
 */
build_result build_csr_file(const edge_source& source, const std::filesystem::path& out,
                            const build_options& options);

}  // namespace bam::graph
