// SPDX-License-Identifier: Apache-2.0
// Bodies of apps/vector/vecs_format.hpp.
#pragma once

#include "apps/vector/file_io.hpp"

#include <cstring>
#include <limits>

namespace bam::vec::texmex {

template <class T, class Convert>
matrix<T> parse(const std::string& path, std::span<const std::byte> bytes, std::size_t value_bytes, Convert convert) {
  if (bytes.empty()) bad_file(path, "empty file: no vectors");
  if (bytes.size() < 4) bad_file(path, "truncated: " + std::to_string(bytes.size()) + " bytes, not even one dimension word");
  std::int32_t dim = 0;
  std::memcpy(&dim, bytes.data(), 4);
  if (dim <= 0 || dim > (1 << 20))
    bad_file(path, "row 0 declares dimension " + std::to_string(dim) + " (expected 1.." + std::to_string(1 << 20) + ")");
  const std::size_t row_bytes = 4 + std::size_t(dim) * value_bytes;
  if (bytes.size() % row_bytes != 0)
    bad_file(path, "truncated or corrupt: " + std::to_string(bytes.size()) + " bytes is not a whole number of rows of " +
                       std::to_string(row_bytes) + " bytes (dimension " + std::to_string(dim) + "); the last row is cut after " +
                       std::to_string(bytes.size() % row_bytes) + " bytes");
  matrix<T> m(bytes.size() / row_bytes, std::uint32_t(dim));
  for (std::uint64_t r = 0; r < m.rows; ++r) {
    const std::byte* row = bytes.data() + r * row_bytes;
    std::int32_t d = 0;
    std::memcpy(&d, row, 4);
    if (d != dim)
      bad_file(path, "row " + std::to_string(r) + " declares dimension " + std::to_string(d) + ", row 0 declared " +
                         std::to_string(dim));
    T* out = m.data.data() + r * m.dim;
    for (std::uint32_t j = 0; j < m.dim; ++j) out[j] = convert(row + 4 + j * value_bytes);
  }
  return m;
}

template <class T, class Put>
std::vector<std::byte> serialise(const matrix<T>& m, std::size_t value_bytes, Put put) {
  const std::size_t row_bytes = 4 + std::size_t(m.dim) * value_bytes;
  std::vector<std::byte> bytes(m.rows * row_bytes);
  const std::int32_t dim = std::int32_t(m.dim);
  for (std::uint64_t r = 0; r < m.rows; ++r) {
    std::byte* row = bytes.data() + r * row_bytes;
    std::memcpy(row, &dim, 4);
    for (std::uint32_t j = 0; j < m.dim; ++j) put(m.data[r * m.dim + j], row + 4 + j * value_bytes);
  }
  return bytes;
}

}  // namespace bam::vec::texmex
