// SPDX-License-Identifier: Apache-2.0
// bam::vec::clustered_source: a seeded collection of clustered vectors of any size, computed
// row by row (nothing stored but the centres), so builds and benchmarks can use hundreds of
// millions of vectors without a data file. Queries come from the same distribution through
// another stream of the same seed.
#pragma once

#include "apps/vector/vector_source.hpp"

#include <cstdint>
#include <vector>

namespace bam::vec {

struct cluster_options {
  std::uint64_t rows = 0;
  std::uint32_t dim = 0;
  std::uint32_t clusters = 1000;  ///< true clusters (centres uniform in [-1, 1]^dim)
  std::uint64_t seed = 1;
  float spread = 0.15f;  ///< standard deviation of each coordinate around its centre
  /// Cluster popularity: row r joins cluster floor(clusters * u^skew) for uniform u, so skew 1
  /// gives equal clusters and skew > 1 makes low-numbered clusters larger.
  float skew = 1.0f;
};

class clustered_source final : public vector_source {
 public:
  /// Stream 0 is the base collection; other streams (e.g. 1 for queries) draw fresh rows from
  /// the same clusters. @throw bam::invalid_argument on zero rows, dimension or clusters.
  explicit clustered_source(const cluster_options& o, std::uint64_t stream = 0);

  [[nodiscard]] std::uint64_t rows() const override { return o_.rows; }
  [[nodiscard]] std::uint32_t dim() const override { return o_.dim; }
  void read(std::uint64_t first, std::uint64_t n, float* out) const override;
  [[nodiscard]] std::string name() const override;
  /// The true cluster of row `r` (for tests).
  [[nodiscard]] std::uint32_t cluster_of(std::uint64_t r) const;

 private:
  cluster_options o_;
  std::uint64_t stream_;
  std::vector<float> centres_;  ///< clusters x dim
};

}  // namespace bam::vec
