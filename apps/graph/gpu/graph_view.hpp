// SPDX-License-Identifier: Apache-2.0
// What a kernel receives for a graph: offsets in memory the executing side reads directly (VRAM
// on the GPU, host memory on the CPU path) and neighbor/weight arrays behind an Edges type.
#pragma once

#include "apps/graph/csr_view.hpp"
#include "apps/graph/gpu/edge_storage.hpp"

#include <bam/config.hpp>

#include <cstdint>
#include <type_traits>

namespace bam::graph::gpu {

/**
 * @brief A CSR graph as kernels see it; trivially copyable, passed by value.
 * @tparam Edges storage of the neighbor ids (value_type std::uint32_t or std::uint64_t)
 * @tparam Weights storage of the weights (value_type weight_t); size() == 0 when unweighted
 * @note The invariants of csr_view hold (offsets non-decreasing from 0 to num_edges, neighbors
 * below num_vertices). BFS, CC and SSSP follow out-edges; PageRank pulls over the stored lists,
 * so it needs a symmetric graph (the runners refuse others).
 */
template <edge_storage Edges, edge_storage Weights>
struct graph_view {
  using id_type = typename Edges::value_type;
  static_assert(std::is_same_v<id_type, std::uint32_t> || std::is_same_v<id_type, std::uint64_t>);
  static_assert(std::is_same_v<typename Weights::value_type, weight_t>);

  const std::uint64_t* offsets = nullptr;  ///< num_vertices + 1 entries
  std::uint64_t num_vertices = 0;
  std::uint64_t num_edges = 0;             ///< arcs: an undirected edge counts twice
  Edges neighbors;
  Weights weights;  ///< size() == 0 when unweighted
  bool symmetric = false;

  [[nodiscard]] BAM_HD bool weighted() const { return weights.size() != 0; }
  [[nodiscard]] BAM_HD std::uint64_t begin(std::uint64_t u) const { return offsets[u]; }
  [[nodiscard]] BAM_HD std::uint64_t degree(std::uint64_t u) const { return offsets[u + 1] - offsets[u]; }
};

/// (a) neighbors and weights through bam's page cache.
template <class Id>
using cached_graph_view = graph_view<cached_edges<Id>, cached_edges<weight_t>>;
/// (b)-(d) neighbors and weights in VRAM, pinned host memory, managed memory (or host memory for
/// CPU threads).
template <class Id>
using pointer_graph_view = graph_view<pointer_edges<Id>, pointer_edges<weight_t>>;

static_assert(std::is_trivially_copyable_v<cached_graph_view<std::uint32_t>>);
static_assert(std::is_trivially_copyable_v<pointer_graph_view<std::uint64_t>>);

}  // namespace bam::graph::gpu
