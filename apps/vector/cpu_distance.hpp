// SPDX-License-Identifier: Apache-2.0
// bam::vec: dot products and keys on the host, written so the compiler vectorises them
// (eight independent accumulators: no reassociation of one sum is needed).
#pragma once

#include "apps/vector/metric.hpp"
#include "apps/vector/scalar.hpp"

#include <cstdint>

namespace bam::vec {

/// sum a[j] * b[j], or sum (a[j] - b[j])^2 when L2.
template <bool L2, class T>
[[nodiscard]] inline float accumulate(const float* a, const T* b, std::uint32_t d) {
  float acc[8] = {};
  std::uint32_t j = 0;
  for (; j + 8 <= d; j += 8) {
    for (unsigned l = 0; l < 8; ++l) {
      const float x = to_float(b[j + l]);
      if constexpr (L2) {
        const float t = a[j + l] - x;
        acc[l] += t * t;
      } else {
        acc[l] += a[j + l] * x;
      }
    }
  }
  for (; j < d; ++j) {
    const float x = to_float(b[j]);
    if constexpr (L2) {
      const float t = a[j] - x;
      acc[0] += t * t;
    } else {
      acc[0] += a[j] * x;
    }
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/// The search key (smaller is better) of query `q` against vector `x`: exact squared L2
/// distance, or the negated inner product.
template <class T>
[[nodiscard]] inline float cpu_key(metric m, const float* q, const T* x, std::uint32_t d) {
  return m == metric::l2 ? accumulate<true>(q, x, d) : -accumulate<false>(q, x, d);
}

}  // namespace bam::vec
