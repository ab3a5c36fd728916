// SPDX-License-Identifier: Apache-2.0
// Read-only memory map of a whole file (RAII, move-only).
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace bam::graph {

/** @brief Owns a read-only, shared mapping of a whole file. An empty file maps to no bytes. */
class mapped_file {
 public:
  /**
   * @brief Maps `path` read-only.
   * @throw io_error naming the path when it cannot be opened, sized or mapped.
   */
  explicit mapped_file(std::filesystem::path path);
  mapped_file(mapped_file&& other) noexcept;
  mapped_file& operator=(mapped_file&& other) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  [[nodiscard]] std::span<const std::byte> bytes() const { return {data_, size_}; }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  void release() noexcept;

  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace bam::graph
