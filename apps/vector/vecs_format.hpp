// SPDX-License-Identifier: Apache-2.0
// bam::vec: the TEXMEX .fvecs/.ivecs/.bvecs layout: per row, a little-endian int32 dimension d
// then d values of 4 (float32 / int32) or 1 (uint8) bytes. Every row must have the same d.
#pragma once

#include "apps/vector/matrix.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bam::vec::texmex {

/// Parses the rows of `bytes` (the content of `path`, named in errors) with values of
/// `value_bytes` each, converting every value with `convert(const std::byte*)`.
template <class T, class Convert>
matrix<T> parse(const std::string& path, std::span<const std::byte> bytes, std::size_t value_bytes, Convert convert);

/// Serialises rows: per row the int32 dimension, then each value written by `put(T, std::byte*)`.
template <class T, class Put>
std::vector<std::byte> serialise(const matrix<T>& m, std::size_t value_bytes, Put put);

}  // namespace bam::vec::texmex

#include "apps/vector/vecs_format.inl"
