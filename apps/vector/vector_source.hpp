// SPDX-License-Identifier: Apache-2.0
// bam::vec::vector_source: rows of float vectors read by index range, from a file loaded into
// memory or computed on demand (the clustered generator), so builds can stream collections
// larger than memory.
#pragma once

#include "apps/vector/matrix.hpp"

#include <cstdint>
#include <string>

namespace bam::vec {

class vector_source {
 public:
  virtual ~vector_source() = default;
  [[nodiscard]] virtual std::uint64_t rows() const = 0;
  [[nodiscard]] virtual std::uint32_t dim() const = 0;
  /// Rows [first, first + n) into `out` (n * dim() floats). Thread-safe; precondition:
  /// first + n <= rows().
  virtual void read(std::uint64_t first, std::uint64_t n, float* out) const = 0;
  /// For messages and JSON ("base.fvecs", "clustered(n=..., seed=...)").
  [[nodiscard]] virtual std::string name() const = 0;
};

/// A matrix in memory (it must outlive the source).
class matrix_source final : public vector_source {
 public:
  matrix_source(const matrix<float>& m, std::string name) : m_(m), name_(std::move(name)) {}
  [[nodiscard]] std::uint64_t rows() const override { return m_.rows; }
  [[nodiscard]] std::uint32_t dim() const override { return m_.dim; }
  void read(std::uint64_t first, std::uint64_t n, float* out) const override;
  [[nodiscard]] std::string name() const override { return name_; }

 private:
  const matrix<float>& m_;
  std::string name_;
};

/// Reads every row of `src` into a matrix (for sources that fit in memory).
[[nodiscard]] matrix<float> read_all(const vector_source& src);

}  // namespace bam::vec
