// SPDX-License-Identifier: Apache-2.0
// bench/soak: one run of the sweep — a fresh emulated system (with the run's fault plan) and
// page cache over the soak's data, phases until the run's share of the budget is spent, a
// flush with the faults lifted, and a comparison of all storage with the model.
#pragma once

#include "bench/soak/counts.hpp"
#include "bench/soak/lanes.hpp"
#include "bench/soak/model.hpp"
#include "bench/soak/sweep.hpp"

#include <bam/page_cache.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace bam::bench::soak {

/// What every run shares.
struct run_options {
  std::uint32_t workers = 2;      ///< emulator threads
  std::uint32_t queue_pairs = 4;  ///< I/O queue pairs
  std::uint32_t queue_depth = 64; ///< entries per queue (pages of 64 KiB get at most 128)
  std::chrono::milliseconds timeout{2'000};      ///< page_cache_options::timeout without faults
  std::chrono::milliseconds fault_timeout{100};  ///< with faults: lost commands show quickly
  std::uint64_t phase_accesses = std::uint64_t{1} << 24;  ///< draws a phase aims at
  std::uint64_t seed = 0x50a4;
};

/// A run's outcome.
struct run_result {
  run_config config;
  std::uint32_t cache_slots = 0;
  std::uint64_t lanes = 0;
  std::uint32_t phases = 0;
  phase_counts counts;       ///< summed over phases (the first wrong value of the first phase with one)
  double phase_seconds = 0;  ///< time in phases
  double seconds = 0;        ///< the whole run, set-up and checks included
  double hit_rate = 0;
  std::uint64_t commands = 0, dropped = 0, nvme_errors = 0;  ///< the emulator's counts
  std::vector<recovery_event> recoveries;
  std::uint64_t expected_failures = 0, unexpected_failures = 0;
  std::uint32_t check_error_count = 0;    ///< page_cache::check() exceptions after phases
  std::vector<std::string> check_errors;  ///< their messages (the first few)
  std::string flush_error;                ///< empty when the final flush succeeded
  std::string run_error;                  ///< why the run stopped early (set-up, lanes); empty if it did not
  backing_check backing;

  /// Values that were wrong: reads and fetch_adds against the model in phases, and storage
  /// against the model after a flush that succeeded (a mismatch there is a lost store).
  [[nodiscard]] std::uint64_t wrong_values() const {
    return counts.wrong + (completed() ? backing.mismatches() : 0);
  }
  /// Whether the run ended with a successful flush (storage must then equal the model).
  [[nodiscard]] bool completed() const { return flush_error.empty() && run_error.empty(); }
  /// Elements storage lacks because the run did not complete (reported, not counted as wrong).
  [[nodiscard]] std::uint64_t unflushed() const { return completed() ? 0 : backing.mismatches(); }
  [[nodiscard]] double max_recovery_ms() const;
};

class runner {
 public:
  runner(lanes& l, model& m, run_options o) : lanes_(l), model_(m), options_(o) {}

  /**
   * @brief Runs `config` for about `seconds` (at least one phase; waits that time out can
   * make it longer).
   * @throw bam::error when the run cannot be set up or its lanes cannot run
   */
  run_result run(const run_config& config, double seconds);

 private:
  lanes& lanes_;
  model& model_;
  run_options options_;
  std::uint32_t phase_ = 0;  ///< the last phase number used
};

}  // namespace bam::bench::soak
