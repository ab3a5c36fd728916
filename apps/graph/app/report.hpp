// SPDX-License-Identifier: Apache-2.0
// What the graph apps report: progress on stderr, the cache profile of every step (hits,
// misses, bytes read, sampled from the page cache between kernels), one JSON record per trial
// (time, traversed edges per second, hit rate, bytes read, I/O amplification), a summary table,
// and the PNG plot of the profile.
#pragma once

#include "apps/graph/app/app.hpp"

#include <bam/page_cache.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

namespace bam::graph::app {

/// One trial in progress: prints progress and records each step with its cache counters.
class trial_recorder {
 public:
  trial_recorder(std::string label, page_cache* cache, bool quiet);
  /// Called by the runner after every step (its kernels are done).
  void step(const gpu::iteration_info& info);
  [[nodiscard]] nlohmann::json take_profile() { return std::move(profile_); }

 private:
  std::string label_;
  page_cache* cache_;
  bool quiet_;
  cache::cache_stats last_{};
  std::chrono::steady_clock::time_point last_print_{};
  nlohmann::json profile_ = nlohmann::json::array();
};

class run_report {
 public:
  /// @param cache the page cache the edges are read through, or nullptr for resident backends
  run_report(std::string command, const csr_file& file, std::string backend, bool gpu, page_cache* cache,
             std::uint64_t cache_bytes, bool weights);

  /// Resets the cache counters and starts recording trial `index` of `count`.
  [[nodiscard]] trial_recorder start_trial(std::size_t index, std::size_t count, bool quiet);
  /// Adds the trial's record (verdict: "" when it matched the reference).
  void finish_trial(trial_recorder trial, std::uint64_t source, bool uses_source, const trial_outcome& out,
                    bool verified, const std::string& verdict);

  [[nodiscard]] std::string table() const;
  /// Writes the summary to `path` ("-": stdout). @throw bam::system_error when it cannot.
  void write_json(const std::string& path) const;

 private:
  std::string command_;
  page_cache* cache_;
  std::uint64_t entry_bytes_;  ///< bytes of one neighbor entry (plus its weight)
  nlohmann::json doc_;
};

/// Runs plot_profile.py on the JSON summary; prints why and skips the PNG when python3 or
/// matplotlib is missing. @throw bam::error when the script fails otherwise.
void plot_profile(const std::string& json, const std::string& png);

}  // namespace bam::graph::app
