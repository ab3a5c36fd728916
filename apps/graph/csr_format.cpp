// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/csr_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>

#include "apps/graph/crc32.hpp"
#include "apps/graph/error.hpp"

namespace bam::graph {
namespace {

// Largest section length we accept before arithmetic on offsets could overflow.
constexpr std::uint64_t max_section_bytes = std::uint64_t{1} << 60;

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& what) {
  throw format_error(path.string() + ": " + what);
}

}  // namespace

csr_layout compute_layout(std::uint64_t num_vertices, std::uint64_t num_edges,
                          std::uint32_t id_bytes, bool weighted) {
  csr_layout layout{};
  layout.offsets_offset = csr_page_bytes;
  layout.neighbors_offset = layout.offsets_offset + page_align((num_vertices + 1) * 8);
  const std::uint64_t neighbors_end = layout.neighbors_offset + page_align(num_edges * id_bytes);
  layout.weights_offset = weighted ? neighbors_end : 0;
  layout.file_bytes = weighted ? neighbors_end + page_align(num_edges * 4) : neighbors_end;
  return layout;
}

std::uint32_t header_checksum(const csr_header& header) {
  csr_header copy = header;
  copy.header_crc32 = 0;
  return crc32_extend(0, std::as_bytes(std::span(&copy, 1)), 1);
}

void validate_header(const csr_header& h, std::uint64_t actual_file_bytes,
                     const std::filesystem::path& path) {
  if (h.magic != csr_magic) refuse(path, "not a bam CSR graph file (bad magic bytes)");
  if (h.version != csr_version) {
    refuse(path, fmt::format("unsupported CSR format version {} (this build reads version {})",
                             h.version, csr_version));
  }
  if (const std::uint32_t crc = header_checksum(h); crc != h.header_crc32) {
    refuse(path, fmt::format("header checksum mismatch (stored {:#010x}, computed {:#010x}): "
                             "the header is corrupt",
                             h.header_crc32, crc));
  }
  if (h.header_bytes != sizeof(csr_header)) {
    refuse(path,
           fmt::format("header_bytes is {}, expected {}", h.header_bytes, sizeof(csr_header)));
  }
  if ((h.flags & ~csr_known_flags) != 0) refuse(path, fmt::format("unknown flags {:#x}", h.flags));
  if (h.page_bytes != csr_page_bytes) {
    refuse(path, fmt::format("page_bytes is {}, expected {}", h.page_bytes, csr_page_bytes));
  }
  if (h.id_bytes != 4 && h.id_bytes != 8) {
    refuse(path, fmt::format("id_bytes is {}, expected 4 or 8", h.id_bytes));
  }
  if (h.id_bytes == 4 && h.num_vertices > csr_max_vertices_32) {
    refuse(path, fmt::format("{} vertices need 8-byte ids, header says 4", h.num_vertices));
  }
  if (h.weight_bytes != (h.weighted() ? 4u : 0u)) {
    refuse(path, fmt::format("weight_bytes is {} for a {} graph", h.weight_bytes,
                             h.weighted() ? "weighted" : "unweighted"));
  }
  if (std::any_of(h.reserved.begin(), h.reserved.end(), [](std::uint8_t b) { return b != 0; })) {
    refuse(path, "reserved header bytes are not zero");
  }
  if (h.num_vertices + 1 > max_section_bytes / 8 || h.num_edges > max_section_bytes / 8) {
    refuse(path,
           fmt::format("implausible sizes: {} vertices, {} edges", h.num_vertices, h.num_edges));
  }
  const csr_layout expect = compute_layout(h.num_vertices, h.num_edges, h.id_bytes, h.weighted());
  if (h.offsets_offset != expect.offsets_offset || h.neighbors_offset != expect.neighbors_offset ||
      h.weights_offset != expect.weights_offset || h.file_bytes != expect.file_bytes) {
    refuse(path, fmt::format("section offsets (offsets {}, neighbors {}, weights {}, end {}) do "
                             "not match the layout for {} vertices and {} edges (offsets {}, "
                             "neighbors {}, weights {}, end {})",
                             h.offsets_offset, h.neighbors_offset, h.weights_offset, h.file_bytes,
                             h.num_vertices, h.num_edges, expect.offsets_offset,
                             expect.neighbors_offset, expect.weights_offset, expect.file_bytes));
  }
  if (actual_file_bytes < h.file_bytes) {
    refuse(path, fmt::format("truncated: header says {} bytes, file has {}", h.file_bytes,
                             actual_file_bytes));
  }
  if (actual_file_bytes > h.file_bytes) {
    refuse(path, fmt::format("{} unexpected bytes after the end the header gives ({} bytes)",
                             actual_file_bytes - h.file_bytes, h.file_bytes));
  }
}

}  // namespace bam::graph
