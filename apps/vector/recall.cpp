// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/recall.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <vector>

namespace bam::vec {

double recall_at(std::uint32_t k, const search_results& found, const matrix<std::int64_t>& truth) {
  BAM_EXPECTS(found.queries == truth.rows, "recall: " + std::to_string(found.queries) + " result rows but " +
                                               std::to_string(truth.rows) + " ground-truth rows");
  BAM_EXPECTS(k >= 1 && k <= found.k && k <= truth.dim,
              "recall@" + std::to_string(k) + " needs k columns: results have " + std::to_string(found.k) +
                  ", ground truth " + std::to_string(truth.dim));
  std::uint64_t hits = 0;
  std::vector<std::int64_t> want(k);
  for (std::uint64_t q = 0; q < found.queries; ++q) {
    const auto t = truth.row(q);
    std::copy_n(t.begin(), k, want.begin());
    std::sort(want.begin(), want.end());
    for (std::uint32_t j = 0; j < k; ++j) {
      const std::int64_t id = found.ids[q * found.k + j];
      if (id >= 0 && std::binary_search(want.begin(), want.end(), id)) ++hits;
    }
  }
  return found.queries ? double(hits) / double(found.queries * k) : 0.0;
}

}  // namespace bam::vec
