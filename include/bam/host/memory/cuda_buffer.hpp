// SPDX-License-Identifier: Apache-2.0
// bam::host::cuda_buffer: a typed CUDA allocation freed by its destructor, for what a program's
// own kernels read and write (inputs, results, counters, models): VRAM, Unified Memory or pinned
// host memory. Not DMA memory: a controller reaches only a memory_resource's dma_buffer.
// CUDA builds: the runtime calls are in host/memory/cuda_buffer.cpp (like cuda_memory, the
// header compiles everywhere and links only where CUDA is).
#pragma once

#include <bam/error.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <utility>

namespace bam::host {

/// Where a cuda_buffer lives. Kernels address all three at data() (unified addressing).
enum class cuda_allocation {
  vram,     ///< cudaMalloc
  managed,  ///< cudaMallocManaged: Unified Memory, migrated on demand; the CPU may touch it too
  pinned,   ///< cudaHostAlloc(cudaHostAllocMapped): host memory kernels read over PCIe
};

}  // namespace bam::host

namespace bam::detail {
/// The CUDA runtime calls behind cuda_buffer; each throws bam::cuda_error on failure.
[[nodiscard]] void* cuda_buffer_allocate(std::size_t bytes, host::cuda_allocation where);
void cuda_buffer_free(void* p, host::cuda_allocation where) noexcept;
/// Sets `bytes` at `p` to zero (stream-ordered before later work on the default stream).
void cuda_buffer_zero(void* p, std::size_t bytes, host::cuda_allocation where);
/// cudaMemcpy with cudaMemcpyDefault: any pair of host, VRAM, managed and pinned memory.
void cuda_buffer_copy(void* dst, const void* src, std::size_t bytes);
}  // namespace bam::detail

namespace bam::host {

/**
 * @brief `size()` elements of T in CUDA memory of one kind; move-only, freed on destruction.
 *
 * Contents start uninitialised (zero() clears them). An empty buffer (size 0) holds no memory
 * and data() is null.
 */
template <class T>
class cuda_buffer {
 public:
  cuda_buffer() = default;
  /// @throw bam::cuda_error when the allocation fails
  explicit cuda_buffer(std::size_t n, cuda_allocation where = cuda_allocation::vram) : n_(n), where_(where) {
    if (n) p_ = static_cast<T*>(bam::detail::cuda_buffer_allocate(bytes(), where));
  }
  cuda_buffer(cuda_buffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), where_(o.where_) {}
  cuda_buffer& operator=(cuda_buffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(where_, o.where_);
    return *this;
  }
  cuda_buffer(const cuda_buffer&) = delete;
  cuda_buffer& operator=(const cuda_buffer&) = delete;
  ~cuda_buffer() {
    if (p_) bam::detail::cuda_buffer_free(p_, where_);
  }

  [[nodiscard]] T* data() const noexcept { return p_; }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return n_ * sizeof(T); }
  [[nodiscard]] cuda_allocation where() const noexcept { return where_; }

  /// Grows (discarding the contents, keeping the kind) to hold at least `n` elements.
  void reserve(std::size_t n) {
    if (n > n_) *this = cuda_buffer(n, where_);
  }
  /// Sets every byte to zero (stream-ordered before later work on the default stream).
  void zero() {
    if (p_) bam::detail::cuda_buffer_zero(p_, bytes(), where_);
  }
  /// Copies `src` to elements [at, at + src.size()). @throw bam::invalid_argument past the end
  void upload(std::span<const T> src, std::size_t at = 0) {
    check_range("upload", at, src.size());
    if (!src.empty()) bam::detail::cuda_buffer_copy(p_ + at, src.data(), src.size_bytes());
  }
  /// Copies elements [at, at + dst.size()) to `dst`. @throw bam::invalid_argument past the end
  void download(std::span<T> dst, std::size_t at = 0) const {
    check_range("download", at, dst.size());
    if (!dst.empty()) bam::detail::cuda_buffer_copy(dst.data(), p_ + at, dst.size_bytes());
  }

 private:
  void check_range(const char* what, std::size_t at, std::size_t n) const {
    BAM_EXPECTS(at <= n_ && n <= n_ - at, std::string("cuda_buffer::") + what + ": elements [" + std::to_string(at) +
                                              ", " + std::to_string(at + n) + ") past the end (" + std::to_string(n_) +
                                              " elements)");
  }

  T* p_ = nullptr;
  std::size_t n_ = 0;
  cuda_allocation where_ = cuda_allocation::vram;
};

}  // namespace bam::host
