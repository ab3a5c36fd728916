// SPDX-License-Identifier: Apache-2.0
// bam::vec::recall_at: the share of the true k nearest neighbours that a search returned.
#pragma once

#include "apps/vector/matrix.hpp"
#include "apps/vector/search.hpp"

#include <cstdint>

namespace bam::vec {

/**
 * @brief Mean over queries of |found[:k] ∩ truth[:k]| / k (ann-benchmarks' recall@k on ids).
 * @param truth at least k ids per query, one row per query of `found`
 * @throw bam::invalid_argument when the row counts differ or either has fewer than k columns
 */
[[nodiscard]] double recall_at(std::uint32_t k, const search_results& found, const matrix<std::int64_t>& truth);

}  // namespace bam::vec
