// SPDX-License-Identifier: Apache-2.0
// The one place the Python package meets page_cache::map: a mapped array of one of the
// package's dtypes, its shape, and argument checks that run before any work does. float16 and
// bfloat16 are moved as 16-bit words (gather, read and write copy bytes; they have no
// scatter_add).
#pragma once

#include <bam/page_cache.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace bam::python {

/// The dtypes of the package, named as NumPy and torch name them.
enum class dtype { float32, float16, bfloat16, int32, int64, uint8 };

/// "float32" -> dtype::float32 ...; @throw bam::invalid_argument naming the dtypes accepted.
dtype parse_dtype(const std::string& name);
std::string dtype_name(dtype d);
std::size_t dtype_bytes(dtype d);

/// A mapped array: its element view (by storage type), dtype and shape (1-D or 2-D, row-major).
struct mapped_array {
  using view = std::variant<array<std::uint8_t>, array<std::uint16_t>, array<float>, array<std::int32_t>,
                            array<std::int64_t>>;
  view elems;
  dtype type;
  std::vector<std::uint64_t> shape;
  std::string name;
  std::uint32_t range_id;

  [[nodiscard]] std::uint64_t rows() const { return shape[0]; }
  /// Elements per row (1 for a 1-D array).
  [[nodiscard]] std::uint64_t row_elems() const { return shape.size() == 2 ? shape[1] : 1; }
};

/// Maps `shape` elements of `type` from `start_lba` of namespace `nsid` (page_cache::map's layout).
/// @throw bam::invalid_argument on an empty or >2-D shape, or whatever page_cache::map rejects.
mapped_array map_array(page_cache& cache, const std::string& name, dtype type, std::vector<std::uint64_t> shape,
                       std::uint32_t nsid, std::uint64_t start_lba);

}  // namespace bam::python
