// SPDX-License-Identifier: Apache-2.0
// The host module bam-bfs, bam-cc, bam-pagerank and bam-sssp share: one command line, the graph
// put where the chosen backend reads it, sources picked as GAP does, trials with a per-iteration
// cache profile, the JSON summary, the PNG plot, results to a file and --verify against the
// CPU reference. Each app supplies only its algorithm (an `algorithm` object) to app_main().
#pragma once

#include "apps/graph/csr_file.hpp"
#include "apps/graph/gpu/graph_view.hpp"
#include "apps/graph/gpu/runners.hpp"

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace bam::graph::app {

/// Every graph view the kernels are instantiated for.
using any_view = std::variant<gpu::cached_graph_view<std::uint32_t>, gpu::cached_graph_view<std::uint64_t>,
                              gpu::pointer_graph_view<std::uint32_t>, gpu::pointer_graph_view<std::uint64_t>>;

/// What one trial reports to the shared module.
struct trial_outcome {
  double seconds = 0;
  std::uint64_t edges_examined = 0;   ///< neighbor entries the kernels read
  std::uint64_t edges_traversed = 0;  ///< what traversed edges per second counts (see README)
  std::uint64_t edges_needed = 0;     ///< distinct neighbor entries the result depends on
  nlohmann::json extra = nlohmann::json::object();  ///< algorithm-specific fields (levels, ...)
};

/// One algorithm, as an app supplies it.
class algorithm {
 public:
  virtual ~algorithm() = default;
  [[nodiscard]] virtual std::string name() const = 0;         ///< "bfs", "cc", ...
  [[nodiscard]] virtual std::string description() const = 0;  ///< the --help headline
  [[nodiscard]] virtual bool uses_source() const = 0;
  [[nodiscard]] virtual bool uses_weights() const = 0;
  /// Adds the algorithm's own options.
  virtual void add_options(CLI::App& cli) { (void)cli; }
  /// Runs once from `source` (ignored unless uses_source()); keeps the result for verify/write.
  virtual trial_outcome run(const csr_file& file, const any_view& g, std::uint64_t source,
                            const gpu::run_options& o) = 0;
  /// Compares the kept result with the CPU reference; returns "" or what differs.
  [[nodiscard]] virtual std::string verify(const csr_file& file, std::uint64_t source, unsigned threads) const = 0;
  /// Writes the kept result, one "vertex<TAB>value" line per vertex.
  virtual void write(std::ostream& out) const = 0;
};

/// Neighbor entries of the vertices whose value is not `unreached` (the part of the graph a
/// search from one source traverses).
template <class T>
std::uint64_t reached_edges(const csr_file& file, const std::vector<T>& value, T unreached) {
  return visit_view(file, [&](const auto& g) {
    std::uint64_t sum = 0;
    for (std::uint64_t v = 0; v < value.size(); ++v) sum += value[v] != unreached ? g.degree(v) : 0;
    return sum;
  });
}

/// "" when the vectors are equal, else "vertex V has <what> X, the reference Y" for the first
/// vertex that differs.
template <class T, class U>
std::string first_difference(const std::vector<T>& ours, const std::vector<U>& reference, const std::string& what) {
  for (std::uint64_t v = 0; v < reference.size(); ++v) {
    if (v >= ours.size() || ours[v] != reference[v]) {
      return "vertex " + std::to_string(v) + " has " + what + " " +
             (v < ours.size() ? std::to_string(ours[v]) : std::string("none")) + ", the reference " +
             std::to_string(reference[v]);
    }
  }
  return "";
}

/// Writes "vertex<TAB>value" lines; `unreached` values are written as -1.
template <class T>
void write_values(std::ostream& out, const std::vector<T>& value, std::optional<T> unreached = std::nullopt) {
  for (std::uint64_t v = 0; v < value.size(); ++v) {
    out << v << '\t';
    if (unreached && value[v] == *unreached) out << -1;
    else out << value[v];
    out << '\n';
  }
}

/// Parses the command line, runs the trials and reports; returns the exit status.
int app_main(algorithm& alg, int argc, char** argv);

}  // namespace bam::graph::app
