// SPDX-License-Identifier: Apache-2.0
// bam::vec: reading and writing vector files. TEXMEX formats as used by ann-benchmarks
// (.fvecs float32, .ivecs int32, .bvecs uint8: every row is an int32 dimension followed by the
// row's values) and NumPy .npy (version 1-3, C order, 2-D, little-endian <f4 <f2 |u1 <i4 <i8).
// Every reader validates the whole file and throws bam::invalid_argument naming the file, the
// row and what was wrong (dimension changes, truncation, bad header, unsupported dtype).
#pragma once

#include "apps/vector/matrix.hpp"
#include "apps/vector/scalar.hpp"

#include <cstdint>
#include <string>

namespace bam::vec {

/// File formats, picked from the file name's extension.
enum class file_format { fvecs, ivecs, bvecs, npy };

/// The format named by `path`'s extension (.fvecs .ivecs .bvecs .npy); throws otherwise.
[[nodiscard]] file_format format_of(const std::string& path);

/// Reads any supported file as float rows (integers converted exactly up to 2^24).
[[nodiscard]] matrix<float> read_vectors(const std::string& path);
/// Reads integer rows (ground truth ids): .ivecs, or .npy of <i4 / <i8.
[[nodiscard]] matrix<std::int64_t> read_ids(const std::string& path);

/// Writes float rows as .fvecs or .npy (<f4), by extension.
void write_vectors(const std::string& path, const matrix<float>& m);
/// Writes uint8 rows as .bvecs or .npy (|u1), by extension.
void write_vectors(const std::string& path, const matrix<std::uint8_t>& m);
/// Writes id rows as .ivecs (ids must fit int32) or .npy (<i8), by extension.
void write_ids(const std::string& path, const matrix<std::int64_t>& m);

}  // namespace bam::vec
