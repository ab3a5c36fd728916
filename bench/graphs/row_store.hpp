// SPDX-License-Identifier: Apache-2.0
// Rows kept across invocations in the work folder, so that a benchmark split into several
// commands (each within the GPU box's time limit) still ends in one JSON with every row and one
// headline: a later row with the same key (table, graph, algorithm, system) replaces an earlier.
#pragma once

#include "bench/common/report.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace bam::bench {

class row_store {
 public:
  /** @brief Loads `<work_dir>/graphs-rows.json` if present. @throw bam::error on a bad file. */
  explicit row_store(std::filesystem::path work_dir);

  /// Adds (or replaces) a row; it must carry "graph", "algorithm" and "system".
  void add(const std::string& table, const nlohmann::json& row);
  /// Records the command line of this invocation.
  void add_command(const std::string& command);
  /** @brief Writes the store back. @throw bam::system_error when it cannot. */
  void save() const;

  /// Every stored row into `rep`, the commands into its notes, and the headline (see headline()).
  void fill(report& rep) const;

  /**
   * @brief The headline from the stored in-memory rows: for each graph and algorithm,
   *        `<graph>_<algorithm>_ms` for bam and `..._ms_<peer>` for the peers, the ratios the
   *        targets are stated in, and the timing-model rows as `<graph>_<algorithm>_ms_<drives>`.
   *        Only verified rows count.
   */
  [[nodiscard]] nlohmann::json headline() const;

 private:
  std::filesystem::path path_;
  nlohmann::json doc_;  ///< {"tables": {name: [rows]}, "commands": [..]}
};

}  // namespace bam::bench
