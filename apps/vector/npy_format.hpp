// SPDX-License-Identifier: Apache-2.0
// bam::vec::npy: NumPy's .npy layout for 2-D C-order arrays: "\x93NUMPY", version, header
// length, a Python-dict header naming descr/fortran_order/shape, then the raw values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bam::vec::npy {

/// A parsed header: element type code (e.g. "<f4"), shape, and where the values start.
struct header {
  std::string descr;
  std::uint64_t rows = 0;
  std::uint32_t cols = 0;
  std::size_t item_bytes = 0;
  std::size_t data_offset = 0;
};

/// Parses and validates the header of `bytes` (the content of `path`, named in errors): 2-D,
/// C order, a supported little-endian descr (<f4 <f8 <f2 |u1 <i4 <i8), and exactly
/// rows * cols values after it.
[[nodiscard]] header parse_header(const std::string& path, std::span<const std::byte> bytes);

/// A version 1.0 header for a rows x cols C-order array of `descr`, padded to 64 bytes.
[[nodiscard]] std::vector<std::byte> make_header(const std::string& descr, std::uint64_t rows, std::uint32_t cols);

}  // namespace bam::vec::npy
