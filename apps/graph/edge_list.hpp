// SPDX-License-Identifier: Apache-2.0
// Text edge lists (GAP .el/.wel, SNAP): one edge per line, "u v" or "u v w".
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "apps/graph/edge_source.hpp"
#include "apps/graph/text_file.hpp"

namespace bam::graph {

/**
 * @brief Reads a whitespace-separated edge list: 0-based ids below 2^64 - 1, and optionally an
 *        unsigned 32-bit weight as a third column. Blank lines and lines starting with '#' or
 *        '%' are skipped; the first edge line decides whether every line has 2 or 3 columns.
 * @note The vertex count is the largest id + 1 (GAP's rule), so trailing isolated vertices are
 *       not represented.
 */
class edge_list_source final : public edge_source {
 public:
  /** @throw io_error when unreadable, parse_error when its first edge line is malformed. */
  explicit edge_list_source(std::filesystem::path path, std::uint64_t chunk_bytes = 8u << 20);

  [[nodiscard]] std::string name() const override { return text_.path().string(); }
  [[nodiscard]] std::uint64_t num_chunks() const override { return text_.num_chunks(); }
  [[nodiscard]] bool has_weights() const override { return columns_ == 3; }
  void read_chunk(std::uint64_t chunk, std::vector<raw_edge>& out) const override;

 private:
  text_chunks text_;
  std::size_t columns_ = 2;
};

}  // namespace bam::graph
