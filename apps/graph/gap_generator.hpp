// SPDX-License-Identifier: Apache-2.0
// GAP Benchmark Suite synthetic graphs (Kronecker / R-MAT and uniform random) as an edge_source.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/graph/edge_source.hpp"
#include "apps/graph/huge_array.hpp"

namespace bam::graph {

enum class gap_kind {
  kron,   ///< GAP -g: R-MAT with A=0.57, B=0.19, C=0.19 (Graph500 parameters), ids permuted
  urand,  ///< GAP -u: both endpoints uniform over all vertices, ids not permuted
};

/**
 * @brief The edge list GAP's Generator produces for (kind, scale, degree): 2^scale * degree edges
 *        in 2^18-edge blocks, block b drawn from std::mt19937 seeded 27491095 + b.
 * @note kron: each edge takes `scale` raw 32-bit draws, one bit of source and destination per
 *       draw (quadrant by rmat_a/b/c); then every id x becomes permutation[x], where permutation
 *       is 0..2^scale-1 shuffled by std::shuffle with std::mt19937 seeded 27491095 (computed once
 *       here, 4 bytes per vertex). urand: u then v from gap::uni_dist(2^scale - 1); the graph is
 *       symmetrized, so the draw order does not matter. Chunk c is block c.
 *       Edges are raw: self-loops and duplicates are left for the builder to remove, as GAP does.
 * @warning The permutation is whatever this standard library's std::shuffle makes, as in GAP.
 *          libstdc++ 11 and later agree; other libraries relabel vertices differently (the graph
 *          is then isomorphic: same counts, same degree sequence).
 */
class gap_generator final : public edge_source {
 public:
  /** @throw graph_error unless 1 <= scale <= 30 (GAP's int32 ids) and degree >= 1. */
  gap_generator(gap_kind kind, int scale, int degree);

  [[nodiscard]] std::string name() const override;
  [[nodiscard]] std::uint64_t num_chunks() const override;
  [[nodiscard]] bool has_weights() const override { return false; }
  [[nodiscard]] std::optional<std::uint64_t> id_bound() const override { return num_ids_; }
  void read_chunk(std::uint64_t chunk, std::vector<raw_edge>& out) const override;

  [[nodiscard]] std::uint64_t num_edges() const { return num_edges_; }

 private:
  gap_kind kind_;
  int scale_;
  int degree_;
  std::uint64_t num_ids_;
  std::uint64_t num_edges_;
  huge_array<std::uint32_t> permutation_;  ///< kron only
};

}  // namespace bam::graph
