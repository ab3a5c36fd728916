// SPDX-License-Identifier: Apache-2.0
// VRAM copies of vectors, and the element type of a list_source.
#include "apps/vector/gpu_search.hpp"

#include <bam/detail/cuda_try.hpp>

#include <utility>

namespace bam::vec::gpu {

vram_vectors::vram_vectors(std::span<const std::byte> bytes, scalar_type scalar, std::uint64_t rows, std::uint32_t dim)
    : scalar_(scalar), rows_(rows), dim_(dim) {
  BAM_EXPECTS(bytes.size() >= rows * dim * scalar_bytes(scalar), "vram_vectors: fewer bytes than rows x dim elements");
  BAM_CUDA_TRY(cudaMalloc(&data_, rows * dim * scalar_bytes(scalar)));
  BAM_CUDA_TRY(cudaMemcpy(data_, bytes.data(), rows * dim * scalar_bytes(scalar), cudaMemcpyHostToDevice));
}

vram_vectors::vram_vectors(const ivf_index& index)
    : vram_vectors(index.vectors(), index.scalar(), index.size(), index.dim()) {}

vram_vectors::vram_vectors(const matrix<float>& m)
    : vram_vectors(std::as_bytes(std::span(m.data)), scalar_type::f32, m.rows, m.dim) {}

vram_vectors::~vram_vectors() {
  if (data_) cudaFree(data_);
}

vram_vectors::vram_vectors(vram_vectors&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), scalar_(o.scalar_), rows_(o.rows_), dim_(o.dim_) {}

vram_vectors& vram_vectors::operator=(vram_vectors&& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(scalar_, o.scalar_);
  std::swap(rows_, o.rows_);
  std::swap(dim_, o.dim_);
  return *this;
}

scalar_type scalar_of_source(const list_source& s) {
  switch (s.index()) {
    case 0: return std::get<0>(s)->scalar();
    case 1: return scalar_type::f32;
    case 2: return scalar_type::f16;
    default: return scalar_type::u8;
  }
}

}  // namespace bam::vec::gpu
