// SPDX-License-Identifier: Apache-2.0
// bench/soak: the configurations a soak runs, grouped in sweeps (one table each).
#pragma once

#include "bench/soak/lanes.hpp"
#include "bench/soak/phase.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bam::bench::soak {

/// What the emulated controller does to I/O commands (reads and writes) during a run.
enum class fault_kind : std::uint8_t {
  none,
  drop,   ///< never completed: the wait times out and the queue pair must recover
  delay,  ///< completed late (well within the time limit): no access may fail
  media,  ///< completed with a media error (reads: unrecovered read error, writes: write fault)
};

[[nodiscard]] const char* to_string(fault_kind f);
[[nodiscard]] const char* to_string(pattern p);

/// One run: a fresh emulated system and page cache over the soak's data, phases until its
/// share of the time budget is spent, then flush and a check of all storage.
struct run_config {
  std::string sweep;              ///< the table the run's row goes to
  std::uint32_t page_bytes = 4096;
  std::uint32_t cache_divisor = 16;  ///< cache = data (with counters) / divisor
  grid_kind grid = grid_kind::full;
  pattern pat = pattern::uniform;
  fault_kind fault = fault_kind::none;
  double fault_rate = 0;           ///< probability per I/O command
  double weight = 1;               ///< share of the time budget, relative to other runs

  /// "4096 B, 1/16, full, uniform, drop 1e-03", for tables and messages.
  [[nodiscard]] std::string label() const;
};

/// Sweep names, in the order they run.
inline const std::vector<std::string> sweep_names{"hits", "cache", "grid", "faults"};

/**
 * @brief The runs of the named sweeps.
 * - hits: a hot prefix that fits the cache (all hits once warm), every page size, caches of
 *   1/256 and 1/2 (twice the time: the bulk of the verified accesses);
 * - cache: caches 1/256, 1/64, 1/16, 1/4, 1/2 x pages of 512 B, 4 KiB, 64 KiB, uniform and
 *   Zipf, full grid;
 * - grid: one warp and one block, every page size, uniform and Zipf, cache 1/16;
 * - faults: drops, delays and media errors at 1e-4, 1e-3, 1e-2, uniform and Zipf, 4 KiB pages,
 *   cache 1/16, full grid (twice the time).
 * `quick` (the CPU test) keeps 13 of them: hits at 4 KiB; caches of 1/256 (uniform) and 1/2
 * (Zipf) for every page size; one warp on 64 KiB pages and a 1/256 cache, one block on 4 KiB
 * pages and 1/16; each fault at 1e-2.
 * @throw bam::invalid_argument for an unknown sweep name
 */
[[nodiscard]] std::vector<run_config> make_sweep(const std::vector<std::string>& sweeps, bool quick);

}  // namespace bam::bench::soak
