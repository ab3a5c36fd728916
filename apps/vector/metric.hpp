// SPDX-License-Identifier: Apache-2.0
// bam::vec: similarity metrics. Every search ranks candidates by a *key* where smaller is
// better: the squared L2 distance, or the negated inner product. Keys become the distances
// users see only at the end (key_to_distance).
#pragma once

#include <bam/config.hpp>

#include <cstdint>
#include <string>

namespace bam::vec {

/// The value is the on-disk code in ivf files.
enum class metric : std::uint8_t { l2 = 1, inner_product = 2 };

[[nodiscard]] std::string to_string(metric m);
/// Parses "l2"/"euclidean" and "ip"/"inner_product"/"dot"; throws bam::invalid_argument otherwise.
[[nodiscard]] metric parse_metric(const std::string& name);

/// One element's contribution to a key.
[[nodiscard]] BAM_HD inline float key_term(metric m, float q, float x) {
  if (m == metric::l2) {
    const float d = q - x;
    return d * d;
  }
  return -q * x;
}

/// What is reported for a key: the squared distance (l2) or the inner product (ip).
[[nodiscard]] BAM_HD inline float key_to_distance(metric m, float key) {
  return m == metric::l2 ? key : -key;
}

}  // namespace bam::vec
