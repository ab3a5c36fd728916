// SPDX-License-Identifier: Apache-2.0
// A non-owning, trivially copyable view of a CSR graph: what the reference algorithms take, and
// the shape a GPU kernel receives (with the spans replaced by bam::array views).
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

namespace bam::graph {

/// Edge weight type of the format (GAP draws 1..255).
using weight_t = std::uint32_t;

/**
 * @brief Vertex u's neighbors are neighbors[offsets[u] .. offsets[u+1]), with weights (when
 *        present) at the same positions.
 * @tparam Id std::uint32_t or std::uint64_t, the file's id width.
 * @note Invariants (all but symmetry are checked by csr_file's full verification): offsets.size() =
 *       num_vertices + 1, offsets non-decreasing from 0 to neighbors.size(), each vertex's
 *       neighbors sorted, unique, not itself, below num_vertices; weights empty or the same
 *       length as neighbors. When symmetric, v is in u's list exactly when u is in v's, with the
 *       same weight.
 */
template <class Id>
struct csr_view {
  static_assert(std::is_same_v<Id, std::uint32_t> || std::is_same_v<Id, std::uint64_t>);
  using id_type = Id;

  std::span<const std::uint64_t> offsets;
  std::span<const Id> neighbors;
  std::span<const weight_t> weights;  ///< same length as neighbors when weighted, else empty
  bool weighted = false;
  bool symmetric = false;

  [[nodiscard]] std::uint64_t num_vertices() const { return offsets.size() - 1; }
  [[nodiscard]] std::uint64_t num_edges() const { return neighbors.size(); }
  [[nodiscard]] std::uint64_t degree(std::uint64_t u) const { return offsets[u + 1] - offsets[u]; }
  [[nodiscard]] std::span<const Id> neighbors_of(std::uint64_t u) const {
    return neighbors.subspan(offsets[u], degree(u));
  }
  [[nodiscard]] std::span<const weight_t> weights_of(std::uint64_t u) const {
    return weights.subspan(offsets[u], degree(u));
  }
};
static_assert(std::is_trivially_copyable_v<csr_view<std::uint32_t>>);
static_assert(std::is_trivially_copyable_v<csr_view<std::uint64_t>>);

}  // namespace bam::graph
