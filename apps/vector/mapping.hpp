// SPDX-License-Identifier: Apache-2.0
// bam::vec::mapping: a shared memory map of a whole file, read-only (an index being searched)
// or read-write at a given size (an index being written). RAII, move-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace bam::vec {

class mapping {
 public:
  /// Maps an existing file read-only; throws bam::system_error naming it.
  static mapping open_read(const std::string& path);
  /// Creates (or truncates) `path` at `bytes` and maps it read-write; throws bam::system_error.
  static mapping create(const std::string& path, std::uint64_t bytes);

  mapping(mapping&& o) noexcept;
  mapping& operator=(mapping&& o) noexcept;
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;
  ~mapping();

  [[nodiscard]] std::span<std::byte> bytes() const { return {data_, size_}; }
  [[nodiscard]] const std::string& path() const { return path_; }
  /// Writes dirty pages back and waits (read-write mappings); throws bam::system_error.
  void sync() const;

 private:
  mapping(std::string path, std::byte* data, std::size_t size) : path_(std::move(path)), data_(data), size_(size) {}
  void release() noexcept;

  std::string path_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace bam::vec
