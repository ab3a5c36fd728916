// SPDX-License-Identifier: Apache-2.0
// bam::vec: what every search takes and returns, and the checks that turn bad requests into
// clear errors before any work starts.
#pragma once

#include "apps/vector/matrix.hpp"
#include "apps/vector/metric.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bam::vec {

class ivf_index;

struct search_options {
  std::uint32_t k = 10;      ///< neighbours per query (at most max_k)
  std::uint32_t nprobe = 8;  ///< lists scanned per query (IVF only)
  /// IVF through bam: an extra warp per block reads ahead of the scan, in chunks of 32 pages, up
  /// to `look_ahead_pages` pages past the list of the block's next work item. With 0 the
  /// distance is an eighth of the cache's slots, and batches whose lists average fewer than 4
  /// work items (16 queries each) run without it: there the lists in flight fill most of the
  /// cache and reading ahead evicts pages still to be scanned.
  bool prefetch_next = false;
  std::uint32_t look_ahead_pages = 0;  ///< 0: automatic (see prefetch_next)
};

/// Row-major nq x k results, best first; id -1 (distance +inf for l2, -inf for ip) where
/// fewer than k vectors were scanned.
struct search_results {
  std::uint64_t queries = 0;
  std::uint32_t k = 0;
  std::vector<std::int64_t> ids;
  std::vector<float> distances;  ///< squared L2 distance, or inner product

  search_results() = default;
  search_results(std::uint64_t nq, std::uint32_t kk) : queries(nq), k(kk), ids(nq * kk, -1), distances(nq * kk) {}
  [[nodiscard]] matrix<std::int64_t> id_matrix() const;
};

/**
 * @brief Checks an exact search: k in 1..max_k and at most `rows`, query dimension == `dim`.
 * @param what names the collection in messages (a file name)
 * @throw bam::invalid_argument naming what was wrong
 */
void check_exact_request(const std::string& what, std::uint64_t rows, std::uint32_t dim, std::uint32_t query_dim,
                         std::uint32_t k);
/// As check_exact_request, and nprobe in 1..n_lists.
void check_ivf_request(const ivf_index& index, std::uint32_t query_dim, const search_options& o);

}  // namespace bam::vec
