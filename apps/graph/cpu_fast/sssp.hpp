// SPDX-License-Identifier: Apache-2.0
// Delta-stepping single-source shortest paths (Meyer and Sanders), as GAP's sssp.cc runs it:
// vertices are binned by distance / delta in per-member bins; members relax the shared frontier
// of the lowest non-empty bin, then their own bin of that index until it stays empty.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/graph/cpu_fast/thread_team.hpp"
#include "apps/graph/csr_view.hpp"

namespace bam::graph::cpu_fast {

struct sssp_options {
  std::uint64_t delta = 2;  ///< bin width in weight units (GAP's -d; it runs kron/urand at 2)
};

/**
 * @brief Shortest weighted distance from `source` along out-edges (sssp_unreached when none),
 *        equal to bam::graph::sssp_distances().
 * @note Label-correcting: a distance may be lowered several times, each lowering re-queues the
 *       vertex (relaxed CAS on the distance word); the result is the unique fixed point.
 * @throw graph_error for an unweighted graph, a source that is not a vertex, or delta 0.
 */
template <class Id>
std::vector<std::uint64_t> sssp(const csr_view<Id>& g, std::uint64_t source, thread_team& team,
                                const sssp_options& options = {});

extern template std::vector<std::uint64_t> sssp(const csr_view<std::uint32_t>&, std::uint64_t,
                                                thread_team&, const sssp_options&);
extern template std::vector<std::uint64_t> sssp(const csr_view<std::uint64_t>&, std::uint64_t,
                                                thread_team&, const sssp_options&);

}  // namespace bam::graph::cpu_fast
