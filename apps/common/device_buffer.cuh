// SPDX-License-Identifier: Apache-2.0
// bam::apps::device_buffer: a typed VRAM allocation freed by its destructor, for the apps'
// kernels (graph steps, vector search). nvcc only.
#pragma once

#include <bam/detail/cuda_try.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>

namespace bam::apps {

/// A typed VRAM allocation (move-only; contents uninitialised).
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : n_(n) {
    if (n) BAM_CUDA_TRY(cudaMalloc(&p_, n * sizeof(T)));
  }
  device_buffer(device_buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (p_) cudaFree(p_);
  }

  [[nodiscard]] T* data() const { return p_; }
  [[nodiscard]] std::size_t size() const { return n_; }
  /// Grows (discarding the contents) to hold at least `n` elements.
  void reserve(std::size_t n) {
    if (n > n_) *this = device_buffer(n);
  }
  void upload(std::span<const T> src, std::size_t at = 0) {
    BAM_CUDA_TRY(cudaMemcpy(p_ + at, src.data(), src.size_bytes(), cudaMemcpyHostToDevice));
  }
  void download(std::span<T> dst, std::size_t at = 0) const {
    BAM_CUDA_TRY(cudaMemcpy(dst.data(), p_ + at, dst.size_bytes(), cudaMemcpyDeviceToHost));
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace bam::apps
