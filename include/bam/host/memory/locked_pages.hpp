// SPDX-License-Identifier: Apache-2.0
// Anonymous memory for DMA: mapped in whole pages (2 MiB hugepages when asked and available),
// zeroed, faulted in and locked, so that its pages stay resident while a controller reads and
// writes them.
#pragma once

#include <cstddef>

namespace bam::host {

/// Bytes in an x86-64 hugepage (the default hugetlb size).
inline constexpr std::size_t hugepage_bytes = std::size_t{2} << 20;
/// Bytes in a base page.
inline constexpr std::size_t small_page_bytes = 4096;

/// Which pages DMA memory is made of.
enum class page_policy {
  huge_when_available,  ///< 2 MiB hugepages; 4 KiB pages when none are free
  huge,                 ///< 2 MiB hugepages or an error (physically contiguous 2 MiB runs)
  small,                ///< 4 KiB pages (physically scattered)
};

/// Owner of one mapping of locked pages. Move-only.
class locked_pages {
 public:
  /**
   * @brief Maps at least `bytes` of zeroed, locked memory.
   * @throw bam::system_error when the mapping or the lock fails (the message says how to
   * reserve hugepages or raise RLIMIT_MEMLOCK)
   */
  locked_pages(std::size_t bytes, page_policy policy);
  locked_pages(locked_pages&& o) noexcept;
  locked_pages& operator=(locked_pages&& o) noexcept;
  locked_pages(const locked_pages&) = delete;
  locked_pages& operator=(const locked_pages&) = delete;
  ~locked_pages();

  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  /// Mapped bytes: `bytes` rounded up to page_bytes().
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  /// hugepage_bytes or small_page_bytes.
  [[nodiscard]] std::size_t page_bytes() const noexcept { return page_bytes_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t page_bytes_ = 0;
};

}  // namespace bam::host
