// SPDX-License-Identifier: Apache-2.0
// bam::apps::mapped_file: a shared memory map of a whole file, read-only (a graph or an index
// being read) or read-write at a given size (an index being written). RAII, move-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

namespace bam::apps {

class mapped_file {
 public:
  /// Maps an existing file read-only (an empty file maps to no bytes); throws bam::system_error
  /// naming it.
  static mapped_file open_read(const std::filesystem::path& path);
  /// Creates (or truncates) `path` at `bytes` and maps it read-write; throws bam::system_error.
  static mapped_file create(const std::filesystem::path& path, std::uint64_t bytes);

  mapped_file(mapped_file&& o) noexcept;
  mapped_file& operator=(mapped_file&& o) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  /// The file's bytes (write only through a create()d mapping).
  [[nodiscard]] std::span<std::byte> bytes() const { return {data_, size_}; }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Writes dirty pages back and waits (read-write mappings); throws bam::system_error.
  void sync() const;

 private:
  mapped_file(std::filesystem::path path, std::byte* data, std::size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  void release() noexcept;

  std::filesystem::path path_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace bam::apps
