// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/ivf_format.hpp"

#include "apps/vector/file_io.hpp"

#include <cstring>

namespace bam::vec {

namespace {

std::uint64_t round_up(std::uint64_t v) { return (v + ivf_alignment - 1) / ivf_alignment * ivf_alignment; }

std::uint64_t header_checksum(const ivf_header& h) {
  return fnv1a(std::as_bytes(std::span(&h, 1)).first(offsetof(ivf_header, checksum)));
}

}  // namespace

std::uint64_t fnv1a(std::span<const std::byte> bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const std::byte b : bytes) h = (h ^ std::uint64_t(b)) * 0x100000001b3ull;
  return h;
}

ivf_header make_ivf_header(metric m, scalar_type s, std::uint32_t dim, std::uint64_t n_vectors, std::uint32_t n_lists) {
  ivf_header h;
  std::memset(&h, 0, sizeof h);
  std::memcpy(h.magic, ivf_magic, sizeof h.magic);
  h.version = ivf_version;
  h.header_bytes = std::uint32_t(ivf_alignment);
  h.metric = std::uint8_t(m);
  h.scalar = std::uint8_t(s);
  h.dim = dim;
  h.n_vectors = n_vectors;
  h.n_lists = n_lists;
  h.alignment = std::uint32_t(ivf_alignment);
  std::uint64_t at = ivf_alignment;
  const auto place = [&](std::uint64_t bytes) {
    const ivf_section sec{at, bytes};
    at = round_up(at + bytes);
    return sec;
  };
  h.centroids = place(std::uint64_t(n_lists) * dim * 4);
  h.list_offsets = place((std::uint64_t(n_lists) + 1) * 8);
  h.ids = place(n_vectors * 8);
  h.vectors = place(n_vectors * dim * scalar_bytes(s));
  h.file_bytes = at;
  h.checksum = header_checksum(h);
  return h;
}

void validate_ivf_header(const std::string& path, const ivf_header& h, std::uint64_t file_size) {
  if (file_size < sizeof h) bad_file(path, "truncated: " + std::to_string(file_size) + " bytes, shorter than an ivf header");
  if (std::memcmp(h.magic, ivf_magic, sizeof h.magic) != 0) bad_file(path, "not a bam IVF index (bad magic)");
  if (h.version != ivf_version)
    bad_file(path, "IVF format version " + std::to_string(h.version) + ", this build reads version " + std::to_string(ivf_version));
  if (h.checksum != header_checksum(h)) bad_file(path, "corrupt IVF header (checksum mismatch)");
  const auto m = metric(h.metric);
  const auto s = scalar_type(h.scalar);
  if (m != metric::l2 && m != metric::inner_product) bad_file(path, "unknown metric code " + std::to_string(h.metric));
  if (scalar_bytes(s) == 0) bad_file(path, "unknown scalar type code " + std::to_string(h.scalar));
  if (h.dim == 0 || h.n_lists == 0 || h.n_vectors == 0) bad_file(path, "IVF header has a zero dimension, list count or size");
  const ivf_header want = make_ivf_header(m, s, h.dim, h.n_vectors, h.n_lists);
  if (std::memcmp(&want, &h, sizeof h) != 0) bad_file(path, "IVF header sections are not laid out as version 1 requires");
  if (file_size < h.file_bytes)
    bad_file(path, "truncated: " + std::to_string(file_size) + " bytes, the header describes " + std::to_string(h.file_bytes));
}

}  // namespace bam::vec
