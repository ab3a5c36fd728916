// SPDX-License-Identifier: Apache-2.0
// bam::vec::bam_store: an index's vectors behind bam. An emulated NVMe controller serves a
// namespace holding the index file (the file itself, or a copy in RAM); a bam::page_cache of a
// chosen size sits over it; vectors<T>() maps the vector section as a bam::array<T>.
#pragma once

#include "apps/vector/ivf_index.hpp"

#include <bam/host/emulator/emulated_system.hpp>
#include <bam/page_cache.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace bam::vec {

struct bam_store_options {
  bool gpu = false;  ///< GPU kernels drive the queues (needs a GPU; else CPU threads)
  std::size_t cache_bytes = 64 << 20;  ///< page cache slot memory (VRAM on the GPU)
  std::size_t page_bytes = 4096;
  bool ram = false;                  ///< serve a RAM copy of the file instead of the file
  std::uint32_t queues = 16;         ///< I/O queue pairs
  std::uint32_t depth = 256;         ///< entries per queue
  std::uint32_t workers = 2;         ///< emulated controller threads
  std::uint32_t idle_spin_ns = 20'000;  ///< how long an idle controller thread spins before napping
};

class bam_store {
 public:
  /**
   * @param index the opened index (its file backs the namespace); must outlive the store
   * @throw bam::invalid_argument for bad options or `gpu` without a GPU; bam::error from the
   * controller bring-up
   */
  bam_store(const ivf_index& index, const bam_store_options& o);
  ~bam_store();
  bam_store(const bam_store&) = delete;
  bam_store& operator=(const bam_store&) = delete;

  [[nodiscard]] page_cache& cache() { return *cache_; }

  /// The vector section as an array of index.size() * index.dim() elements (T must match
  /// index.scalar()).
  template <class T>
  [[nodiscard]] array<T> vectors() {
    return cache_->map<T>(
        {.name = "vectors", .nsid = 1,
         .start_lba = index_.header().vectors.offset / block_bytes, .count = index_.size() * index_.dim()});
  }

  /// Block size of the namespace.
  static constexpr std::uint32_t block_bytes = 512;

 private:
  const ivf_index& index_;
  std::unique_ptr<host::emulated_system> system_;
  std::unique_ptr<page_cache> cache_;
};

}  // namespace bam::vec
