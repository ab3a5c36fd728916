// SPDX-License-Identifier: Apache-2.0
// VRAM copies of vectors, and the element type of a list_source.
#include "apps/vector/gpu_search.hpp"

namespace bam::vec::gpu {

vram_vectors::vram_vectors(std::span<const std::byte> bytes, scalar_type scalar, std::uint64_t rows, std::uint32_t dim)
    : scalar_(scalar), rows_(rows), dim_(dim) {
  const std::uint64_t n = rows * dim * scalar_bytes(scalar);
  BAM_EXPECTS(bytes.size() >= n, "vram_vectors: fewer bytes than rows x dim elements");
  data_ = host::cuda_buffer<std::byte>(n);
  data_.upload(bytes.first(n));
}

vram_vectors::vram_vectors(const ivf_index& index)
    : vram_vectors(index.vectors(), index.scalar(), index.size(), index.dim()) {}

vram_vectors::vram_vectors(const matrix<float>& m)
    : vram_vectors(std::as_bytes(std::span(m.data)), scalar_type::f32, m.rows, m.dim) {}

scalar_type scalar_of_source(const list_source& s) {
  switch (s.index()) {
    case 0: return std::get<0>(s)->scalar();
    case 1: return scalar_type::f32;
    case 2: return scalar_type::f16;
    default: return scalar_type::u8;
  }
}

}  // namespace bam::vec::gpu
