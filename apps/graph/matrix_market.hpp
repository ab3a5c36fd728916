// SPDX-License-Identifier: Apache-2.0
// Matrix Market coordinate files (SuiteSparse, GAP .mtx) read as graphs: entry (i, j) is the
// edge i-1 -> j-1.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/graph/edge_source.hpp"
#include "apps/graph/text_file.hpp"

namespace bam::graph {

/**
 * @brief A "%%MatrixMarket matrix coordinate <field> <symmetry>" file with field pattern,
 *        integer or real and symmetry general or symmetric, of a square matrix.
 * @note Vertices = rows (isolated vertices kept). "symmetric" files store one triangle; each
 *       entry then stands for both directions. Integer values become weights (0..2^32-1); real
 *       values are parsed and checked but can only be dropped or replaced (has_weights() is
 *       false for them: see value_field()).
 */
class matrix_market_source final : public edge_source {
 public:
  enum class value_kind { pattern, integer, real };

  /**
   * @brief Reads the banner and size line and counts the entries.
   * @throw parse_error "<file>:<line>: ..." for a bad banner, an unsupported kind, a
   *        non-square size, or an entry count different from the size line's (truncation).
   */
  explicit matrix_market_source(std::filesystem::path path, std::uint64_t chunk_bytes = 8u << 20);

  [[nodiscard]] std::string name() const override { return text_.path().string(); }
  [[nodiscard]] std::uint64_t num_chunks() const override { return text_.num_chunks(); }
  [[nodiscard]] bool has_weights() const override { return values_ == value_kind::integer; }
  [[nodiscard]] bool implies_reverse() const override { return symmetric_; }
  [[nodiscard]] std::optional<std::uint64_t> id_bound() const override { return rows_; }
  [[nodiscard]] std::optional<std::uint64_t> declared_vertices() const override { return rows_; }
  void read_chunk(std::uint64_t chunk, std::vector<raw_edge>& out) const override;

  [[nodiscard]] value_kind values() const { return values_; }

 private:
  /** @brief Parses one entry line into e; fails with the line's position. */
  void parse_entry(std::string_view line, std::uint64_t offset, raw_edge& e) const;

  text_chunks text_;
  value_kind values_ = value_kind::pattern;
  bool symmetric_ = false;
  std::uint64_t rows_ = 0;
};

}  // namespace bam::graph
