// SPDX-License-Identifier: Apache-2.0
// Search sources picked the way GAP's SourcePicker picks them, so runs start where GAP's do.
#pragma once

#include <cstdint>
#include <random>
#include <type_traits>

#include "apps/graph/csr_view.hpp"
#include "apps/graph/error.hpp"
#include "apps/graph/gap_random.hpp"

namespace bam::graph {

/**
 * @brief Yields GAP's sequence of sources for graph g: uniform draws over all vertices from an
 *        engine seeded 27491095 (std::mt19937 for 4-byte ids, std::mt19937_64 for 8-byte ids,
 *        as GAP does for its id width), skipping vertices without out-edges.
 * @note One picker per benchmark run: GAP's trial k uses the k-th source.
 */
template <class Id>
class source_picker {
  using engine_type = std::conditional_t<sizeof(Id) == 4, std::mt19937, std::mt19937_64>;

 public:
  /** @throw graph_error when no vertex has an out-edge (GAP would loop forever). */
  explicit source_picker(const csr_view<Id>& g)
      : graph_(g),
        engine_(static_cast<typename engine_type::result_type>(gap::seed)),
        dist_(static_cast<Id>(g.num_vertices() == 0 ? 0 : g.num_vertices() - 1)) {
    if (g.num_edges() == 0) throw graph_error("cannot pick a source: the graph has no edges");
  }

  Id next() {
    Id source;
    do {
      source = dist_(engine_);
    } while (graph_.degree(source) == 0);
    return source;
  }

 private:
  csr_view<Id> graph_;
  engine_type engine_;
  gap::uni_dist<Id> dist_;
};

}  // namespace bam::graph
