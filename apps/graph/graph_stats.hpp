// SPDX-License-Identifier: Apache-2.0
// Summary statistics of a CSR file, as text or JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/graph/csr_file.hpp"

namespace bam::graph {

struct graph_stats {
  std::uint64_t vertices = 0;
  std::uint64_t arcs = 0;  ///< neighbor entries
  bool symmetric = false;  ///< then undirected edges = arcs / 2
  bool weighted = false;
  std::uint32_t id_bytes = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t isolated = 0;  ///< vertices of degree 0
  std::uint64_t max_degree = 0;
  std::uint64_t max_degree_vertex = 0;  ///< smallest vertex with max_degree
  /// histogram[0]: degree 0; histogram[k]: degrees in [2^(k-1), 2^k)
  std::vector<std::uint64_t> degree_histogram;
  std::uint64_t min_weight = 0;  ///< weighted graphs with edges only
  std::uint64_t max_weight = 0;
  double mean_weight = 0;
};

/** @brief Scans the degrees (and weights) of an opened file. */
graph_stats compute_stats(const csr_file& file, unsigned threads = 0);

nlohmann::ordered_json to_json(const graph_stats& stats);
/** @brief A few aligned "name: value" lines and the degree histogram, for people. */
std::string to_text(const graph_stats& stats);

}  // namespace bam::graph
