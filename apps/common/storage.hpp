// SPDX-License-Identifier: Apache-2.0
// bam::apps::cached_file: sections of a file (a graph's edges, an index's vectors) behind bam.
// One emulated NVMe controller serves namespace 1 from a RAM copy of the sections or from the
// file itself; a bam::page_cache sits over it; map<T>(section) hands out a bam::array<T>. The one
// place the apps build storage, with one set of defaults.
#pragma once

#include <bam/host/emulator/emulated_controller.hpp>

#include <bam/page_cache.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace bam::host {
class emulated_system;
}

namespace bam::apps {

/// Where namespace 1 keeps the sections.
enum class storage_backend {
  ram,   ///< a RAM copy of the sections, each starting on a page boundary
  file,  ///< the file itself, LBA = file offset / block_bytes
};

/// "ram", "file".
[[nodiscard]] const char* to_string(storage_backend b);

/// The page cache holds at least this many pages: every CPU thread, and every warp, needs a slot.
inline constexpr std::uint64_t min_cache_pages = 64;

/// The pinned frames (one page per queue entry) stay within this: with large pages the queues
/// are made shallower (down to 2 entries), then fewer.
inline constexpr std::uint64_t max_frame_bytes = std::uint64_t{1} << 30;

struct storage_options {
  storage_backend backend = storage_backend::ram;
  bool gpu = false;                   ///< GPU kernels drive the queues (needs a GPU; else CPU threads)
  std::uint64_t cache_bytes = 64 << 20;  ///< slot memory (VRAM on the GPU); rounded up to whole pages, >= min_cache_pages
  std::size_t page_bytes = 4096;      ///< cache page: a multiple of block_bytes
  std::uint32_t queues = 64;          ///< I/O queue pairs
  std::uint32_t depth = 1024;         ///< entries per queue (fewer where max_frame_bytes needs it)
  std::uint32_t workers = 0;          ///< emulated controller threads (0: 8 with a GPU, 1 without)
  host::emulated_controller_options emulator{};  ///< timing model, faults, idle spinning
};

/// One section of the file read through the cache.
struct file_section {
  std::string name;                   ///< the array's name in the cache's statistics
  std::uint64_t offset = 0;           ///< where it starts in the file: a multiple of block_bytes
  std::span<const std::byte> bytes;   ///< its contents (copied by the ram backend)
};

class cached_file {
 public:
  /// Logical block size of namespace 1.
  static constexpr std::uint32_t block_bytes = 512;

  /**
   * @param path the file the sections come from (the namespace of the file backend)
   * @throw bam::invalid_argument for bad options, a section off a block boundary, or `gpu`
   *        without a GPU; bam::system_error when the file cannot be opened
   */
  cached_file(const std::filesystem::path& path, std::vector<file_section> sections, const storage_options& o);
  ~cached_file();
  cached_file(const cached_file&) = delete;
  cached_file& operator=(const cached_file&) = delete;

  /// Section `i` as an array of its bytes / sizeof(T) elements.
  /// @throw bam::invalid_argument when sizeof(T) does not divide the section or the page
  template <class T>
  [[nodiscard]] array<T> map(std::size_t i) {
    const file_section& s = section(i, sizeof(T));
    return cache_->map<T>({.name = s.name, .nsid = 1, .start_lba = lbas_[i], .count = s.bytes.size() / sizeof(T)});
  }

  [[nodiscard]] page_cache& cache() { return *cache_; }
  [[nodiscard]] host::emulated_system& system() { return *system_; }
  /// First LBA of section `i` in namespace 1.
  [[nodiscard]] std::uint64_t lba(std::size_t i) const { return lbas_.at(i); }
  /// Slot memory of the cache (the asked size rounded up to whole pages, at least min_cache_pages).
  [[nodiscard]] std::uint64_t cache_bytes() const { return cache_bytes_; }

 private:
  [[nodiscard]] const file_section& section(std::size_t i, std::size_t elem_bytes) const;

  std::vector<file_section> sections_;
  std::vector<std::uint64_t> lbas_;
  std::uint64_t cache_bytes_ = 0;
  std::unique_ptr<host::emulated_system> system_;
  std::unique_ptr<page_cache> cache_;
};

}  // namespace bam::apps
