// SPDX-License-Identifier: Apache-2.0
// Large scratch arrays for the builder and generator: anonymous memory that starts zeroed and
// asks for transparent huge pages, because they are written at random over gigabytes and 4 KiB
// pages would make most of those writes TLB misses.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace bam::graph {

/** @brief A fixed-size, zero-initialized array of trivially copyable T (move-only owner). */
template <class T>
class huge_array {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>);

 public:
  huge_array() = default;

  /** @throw std::bad_alloc when the memory cannot be mapped. */
  explicit huge_array(std::size_t size) : size_(size) {
    if (size == 0) return;
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, bytes(), MADV_HUGEPAGE);  // advice only: without THP the array still works
    data_ = static_cast<T*>(p);
  }
  huge_array(huge_array&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  huge_array& operator=(huge_array&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  huge_array(const huge_array&) = delete;
  huge_array& operator=(const huge_array&) = delete;
  ~huge_array() { release(); }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] T* data() { return data_; }
  [[nodiscard]] const T* data() const { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  [[nodiscard]] std::size_t bytes() const { return size_ * sizeof(T); }
  void release() noexcept {
    if (data_ != nullptr) ::munmap(data_, bytes());
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace bam::graph
