// SPDX-License-Identifier: Apache-2.0
// The on-disk CSR graph format (docs/csr-format.md): one 4096-byte header page, then the offsets,
// neighbors and (optional) weights sections, each starting on a 4096-byte boundary so that a
// bam::array<T> can map a section from its first logical block.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <type_traits>

namespace bam::graph {

static_assert(std::endian::native == std::endian::little,
              "the CSR format is little-endian and is read and written in place");

/// Bytes 0..7 of every CSR file.
inline constexpr std::array<char, 8> csr_magic{'B', 'A', 'M', 'C', 'S', 'R', '\r', '\n'};
/// Format version this code reads and writes; any other version is refused.
inline constexpr std::uint32_t csr_version = 1;
/// Every section starts at a multiple of this, and the file length is a multiple of it.
inline constexpr std::uint64_t csr_page_bytes = 4096;
/// Largest vertex count stored with 4-byte ids: ids stay below 0xFFFFFFFF, which kernels may
/// use as "no vertex".
inline constexpr std::uint64_t csr_max_vertices_32 = 0xFFFFFFFFull;

/// Bits of csr_header::flags.
enum class csr_flag : std::uint32_t {
  weighted = 1u << 0,   ///< a weights section (one uint32 per neighbor entry) is present
  symmetric = 1u << 1,  ///< undirected: v is a neighbor of u exactly when u is one of v
};
inline constexpr std::uint32_t csr_known_flags = 0x3;

/**
 * @brief The first 128 bytes of a CSR file; the rest of the first page is zero.
 * @note All integers little-endian. Sections hold: offsets = (num_vertices + 1) uint64 values,
 *       offsets[0] = 0, offsets[num_vertices] = num_edges, non-decreasing; neighbors = num_edges
 *       ids of id_bytes each, sorted and unique within each vertex, no self-loops, all below
 *       num_vertices; weights = num_edges uint32 values parallel to neighbors.
 */
struct csr_header {
  std::array<char, 8> magic;       ///< csr_magic
  std::uint32_t version;           ///< csr_version
  std::uint32_t header_bytes;      ///< sizeof(csr_header), for future extension
  std::uint32_t flags;             ///< csr_flag bits; unknown bits are refused
  std::uint32_t id_bytes;          ///< 4, or 8 (required when num_vertices > csr_max_vertices_32)
  std::uint32_t weight_bytes;      ///< 4 when weighted, else 0
  std::uint32_t page_bytes;        ///< csr_page_bytes: the section alignment
  std::uint64_t num_vertices;      ///< vertices, ids 0 .. num_vertices - 1
  std::uint64_t num_edges;         ///< neighbor entries (arcs); an undirected edge counts twice
  std::uint64_t offsets_offset;    ///< byte offset of the offsets section in the file
  std::uint64_t neighbors_offset;  ///< byte offset of the neighbors section
  std::uint64_t weights_offset;    ///< byte offset of the weights section; 0 when unweighted
  std::uint64_t file_bytes;        ///< total file length, a multiple of page_bytes
  std::uint32_t offsets_crc32;     ///< zlib CRC-32 of the offsets section (without padding)
  std::uint32_t neighbors_crc32;   ///< CRC-32 of the neighbors section (without padding)
  std::uint32_t weights_crc32;     ///< CRC-32 of the weights section; 0 when unweighted
  std::uint32_t header_crc32;      ///< CRC-32 of these 128 bytes with this field set to 0
  std::array<std::uint8_t, 32> reserved;  ///< zero

  [[nodiscard]] bool weighted() const {
    return (flags & static_cast<std::uint32_t>(csr_flag::weighted)) != 0;
  }
  [[nodiscard]] bool symmetric() const {
    return (flags & static_cast<std::uint32_t>(csr_flag::symmetric)) != 0;
  }
};
static_assert(std::is_trivially_copyable_v<csr_header> && std::is_standard_layout_v<csr_header>);
static_assert(sizeof(csr_header) == 128, "csr_header is 128 bytes on disk");
static_assert(offsetof(csr_header, magic) == 0);
static_assert(offsetof(csr_header, version) == 8);
static_assert(offsetof(csr_header, header_bytes) == 12);
static_assert(offsetof(csr_header, flags) == 16);
static_assert(offsetof(csr_header, id_bytes) == 20);
static_assert(offsetof(csr_header, weight_bytes) == 24);
static_assert(offsetof(csr_header, page_bytes) == 28);
static_assert(offsetof(csr_header, num_vertices) == 32);
static_assert(offsetof(csr_header, num_edges) == 40);
static_assert(offsetof(csr_header, offsets_offset) == 48);
static_assert(offsetof(csr_header, neighbors_offset) == 56);
static_assert(offsetof(csr_header, weights_offset) == 64);
static_assert(offsetof(csr_header, file_bytes) == 72);
static_assert(offsetof(csr_header, offsets_crc32) == 80);
static_assert(offsetof(csr_header, neighbors_crc32) == 84);
static_assert(offsetof(csr_header, weights_crc32) == 88);
static_assert(offsetof(csr_header, header_crc32) == 92);
static_assert(offsetof(csr_header, reserved) == 96);

/// Where each section lies for a given shape; the only layout writers produce.
struct csr_layout {
  std::uint64_t offsets_offset;
  std::uint64_t neighbors_offset;
  std::uint64_t weights_offset;  ///< 0 when unweighted
  std::uint64_t file_bytes;
};

/** @brief Rounds up to a multiple of csr_page_bytes. */
[[nodiscard]] constexpr std::uint64_t page_align(std::uint64_t bytes) {
  return (bytes + csr_page_bytes - 1) / csr_page_bytes * csr_page_bytes;
}

/** @brief 4 when every id fits below 0xFFFFFFFF, else 8. */
[[nodiscard]] constexpr std::uint32_t id_bytes_for(std::uint64_t num_vertices) {
  return num_vertices <= csr_max_vertices_32 ? 4 : 8;
}

/** @brief Sections packed in order (offsets, neighbors, weights), each page-aligned. */
[[nodiscard]] csr_layout compute_layout(std::uint64_t num_vertices, std::uint64_t num_edges,
                                        std::uint32_t id_bytes, bool weighted);

/** @brief CRC-32 of the header with header_crc32 taken as 0. */
[[nodiscard]] std::uint32_t header_checksum(const csr_header& header);

/**
 * @brief Checks everything the header alone can tell against the file's real length: magic,
 *        version, header checksum, known flags, id and weight widths, and that the sections lie
 *        where compute_layout() puts them and the file is exactly file_bytes long.
 * @throw format_error "<path>: <what is wrong>" (e.g. "truncated: header says 8192 bytes, file
 *        has 4096").
 */
void validate_header(const csr_header& header, std::uint64_t actual_file_bytes,
                     const std::filesystem::path& path);

}  // namespace bam::graph
