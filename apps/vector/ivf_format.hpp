// SPDX-License-Identifier: Apache-2.0
// bam::vec: the IVF index file (docs/ivf-format.md). One 4 KiB header page, then page-aligned
// sections: centroids (float32), list offsets (uint64 rows), ids (int64, list order) and the
// vectors themselves, list by list, so that the vector section can be mapped as a
// bam::array<T> straight from the file (or from a namespace holding a copy of it).
#pragma once

#include "apps/vector/metric.hpp"
#include "apps/vector/scalar.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace bam::vec {

inline constexpr char ivf_magic[8] = {'B', 'A', 'M', 'I', 'V', 'F', '0', '1'};
inline constexpr std::uint32_t ivf_version = 1;
/// Section alignment and header size: a page of any page cache up to 4 KiB, and a multiple of
/// every NVMe block size up to 4 KiB, so a section starts at a whole LBA.
inline constexpr std::uint64_t ivf_alignment = 4096;

/// Offset and length of one section, in bytes from the start of the file.
struct ivf_section {
  std::uint64_t offset;
  std::uint64_t bytes;
};
static_assert(sizeof(ivf_section) == 16);

/// The first bytes of the file (little-endian); the rest of the first page is zero.
struct ivf_header {
  char magic[8];               ///< ivf_magic
  std::uint32_t version;       ///< ivf_version
  std::uint32_t header_bytes;  ///< ivf_alignment
  std::uint8_t metric;         ///< vec::metric code
  std::uint8_t scalar;         ///< vec::scalar_type code of the stored vectors
  std::uint16_t reserved;      ///< 0
  std::uint32_t dim;           ///< elements per vector
  std::uint64_t n_vectors;     ///< rows stored
  std::uint32_t n_lists;       ///< inverted lists (= centroids)
  std::uint32_t alignment;     ///< ivf_alignment
  ivf_section centroids;       ///< n_lists x dim float32
  ivf_section list_offsets;    ///< n_lists + 1 uint64: list l holds rows [off[l], off[l+1])
  ivf_section ids;             ///< n_vectors int64: the caller's id of each stored row
  ivf_section vectors;         ///< n_vectors x dim elements of `scalar`, rows in list order
  std::uint64_t file_bytes;    ///< total size (end of the vector section, page-rounded)
  std::uint64_t checksum;      ///< FNV-1a 64 of the header bytes before this field
};
static_assert(sizeof(ivf_header) == 120);
static_assert(offsetof(ivf_header, dim) == 20);
static_assert(offsetof(ivf_header, n_vectors) == 24);
static_assert(offsetof(ivf_header, n_lists) == 32);
static_assert(offsetof(ivf_header, centroids) == 40);
static_assert(offsetof(ivf_header, vectors) == 88);
static_assert(offsetof(ivf_header, file_bytes) == 104);
static_assert(offsetof(ivf_header, checksum) == 112);

/// A header with every section laid out, page-aligned, for the given shape.
[[nodiscard]] ivf_header make_ivf_header(metric m, scalar_type s, std::uint32_t dim, std::uint64_t n_vectors,
                                         std::uint32_t n_lists);

/// Checks magic, version, codes, checksum and that the sections are where make_ivf_header
/// puts them and fit in `file_size` bytes; throws bam::invalid_argument naming `path`.
void validate_ivf_header(const std::string& path, const ivf_header& h, std::uint64_t file_size);

/// FNV-1a 64 over `bytes`.
[[nodiscard]] std::uint64_t fnv1a(std::span<const std::byte> bytes);

}  // namespace bam::vec
