// SPDX-License-Identifier: Apache-2.0
// The interface the CSR builder reads edges through: a fixed sequence of chunks that can be read
// again and again, in any order, from several threads at once. Generators regenerate a chunk;
// text files re-parse it. Reading twice is what lets the builder avoid holding the edge list.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/graph/csr_view.hpp"

namespace bam::graph {

/// One edge as read from a source; w is 0 when the source has no weights.
struct raw_edge {
  std::uint64_t u;
  std::uint64_t v;
  weight_t w;
};

/** @brief A replayable, chunked sequence of edges. */
class edge_source {
 public:
  edge_source() = default;
  edge_source(const edge_source&) = delete;
  edge_source& operator=(const edge_source&) = delete;
  virtual ~edge_source() = default;

  /// For messages: the file name, or the generator and its parameters.
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::uint64_t num_chunks() const = 0;
  /// True when every edge carries a weight from the input itself.
  [[nodiscard]] virtual bool has_weights() const = 0;
  /// True when every stored entry (u, v) also stands for (v, u) (Matrix Market "symmetric").
  [[nodiscard]] virtual bool implies_reverse() const { return false; }
  /// A bound every id is below, when known before reading (lets the builder count degrees in
  /// the same pass that finds the largest id).
  [[nodiscard]] virtual std::optional<std::uint64_t> id_bound() const { return std::nullopt; }
  /// The vertex count the input declares; without one, it is the largest id + 1 (as in GAP).
  [[nodiscard]] virtual std::optional<std::uint64_t> declared_vertices() const {
    return std::nullopt;
  }

  /**
   * @brief Replaces `out` with the edges of chunk `chunk`, in input order.
   * @note Must return the same edges every time, and be safe to call from several threads at
   *       once (on the same or different chunks).
   * @throw parse_error naming the file and line for malformed input.
   */
  virtual void read_chunk(std::uint64_t chunk, std::vector<raw_edge>& out) const = 0;
};

}  // namespace bam::graph
