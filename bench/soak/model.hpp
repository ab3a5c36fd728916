// SPDX-License-Identifier: Apache-2.0
// bench/soak: the data (a RAM namespace: data words, then counters) and its model (what every
// element must hold), kept where the lanes run, and the check of storage against the model.
#pragma once

#include "bench/soak/lanes.hpp"
#include "bench/soak/phase.hpp"

#include <bam/host/emulator/ram_store.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bam::bench::soak {

/// Where the arrays lie in the namespace: data words from LBA 0, counters right after.
struct layout {
  static constexpr std::uint32_t block_bytes = 512;
  std::uint64_t n_data = 0;      ///< data elements, a power of two
  std::uint64_t n_counters = 0;  ///< counters, a power of two
  [[nodiscard]] std::uint64_t data_bytes() const { return n_data * 8; }
  [[nodiscard]] std::uint64_t total_bytes() const { return (n_data + n_counters) * 8; }
  [[nodiscard]] std::uint64_t counters_lba() const { return data_bytes() / block_bytes; }
};

/// The outcome of comparing the whole namespace with the model.
struct backing_check {
  std::uint64_t elements = 0;            ///< elements compared (data and counters)
  std::uint64_t data_mismatches = 0;     ///< data words that differ from the model
  std::uint64_t counter_mismatches = 0;  ///< counters that differ from start + successful adds
  std::string first;                     ///< the first mismatch, described; empty if none
  [[nodiscard]] std::uint64_t mismatches() const { return data_mismatches + counter_mismatches; }
};

class model {
 public:
  /**
   * @brief Creates and fills the namespace (bam::synthetic_word of `fill_seed`) and the model,
   * in memory the lanes reach; draws the Zipf table.
   * @throw bam::invalid_argument unless both sizes are powers of two and the data fills whole
   * 64 KiB pages
   */
  model(lanes& l, layout shape, std::uint64_t fill_seed);

  [[nodiscard]] const layout& shape() const { return layout_; }
  [[nodiscard]] std::shared_ptr<host::ram_store> store() const { return ns_; }
  /// Sets p's model, added, claims, zipf_ranks, zipf_mask and fill_seed.
  void bind(phase_params& p) const;

  /**
   * @brief Compares every data word and counter of the namespace with the model (all host
   * threads). Where they differ, the model takes storage's values afterwards, so the next run
   * is checked against what storage holds; the mismatches are returned for the report.
   * @pre no lanes run and every store was flushed (or its loss is expected)
   */
  backing_check verify_backing();

 private:
  lanes& lanes_;
  layout layout_;
  std::uint64_t fill_seed_;
  std::shared_ptr<host::ram_store> ns_;
  lane_memory values_, added_, claims_, zipf_;
  std::uint32_t zipf_mask_ = 0;
  std::vector<std::uint64_t> expected_, stored_;  ///< host images for verify_backing, kept
};

}  // namespace bam::bench::soak
