// SPDX-License-Identifier: Apache-2.0
// bam::vec::matrix<T>: rows of equal dimension in one row-major host buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bam::vec {

template <class T>
struct matrix {
  std::uint64_t rows = 0;
  std::uint32_t dim = 0;
  std::vector<T> data;  ///< rows * dim values, row i at data[i * dim]

  matrix() = default;
  matrix(std::uint64_t r, std::uint32_t d) : rows(r), dim(d), data(std::size_t(r) * d) {}

  [[nodiscard]] std::span<T> row(std::uint64_t i) { return {data.data() + i * dim, dim}; }
  [[nodiscard]] std::span<const T> row(std::uint64_t i) const { return {data.data() + i * dim, dim}; }
};

}  // namespace bam::vec
