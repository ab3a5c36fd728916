// SPDX-License-Identifier: Apache-2.0
// bam::vec::bam_store: an index's vectors behind bam. The index file's vector section is served
// by apps::cached_file (a RAM copy or the file itself, behind an emulated NVMe controller and a
// bam::page_cache); vectors<T>() maps it as a bam::array<T>.
#pragma once

#include "apps/vector/ivf_index.hpp"

#include "apps/common/storage.hpp"

#include <bam/error.hpp>
#include <bam/page_cache.hpp>

namespace bam::vec {

class bam_store {
 public:
  /**
   * @param index the opened index (its file backs the namespace); must outlive the store
   * @throw bam::invalid_argument for bad options or `gpu` without a GPU; bam::error from the
   * controller bring-up
   */
  bam_store(const ivf_index& index, const apps::storage_options& o)
      : index_(index),
        file_(index.path(), {{"vectors", index.header().vectors.offset, index.vectors()}}, o) {}

  [[nodiscard]] page_cache& cache() { return file_.cache(); }
  /// Slot memory of the cache (whole pages, at least apps::min_cache_pages).
  [[nodiscard]] std::uint64_t cache_bytes() const { return file_.cache_bytes(); }

  /// The vector section as an array of index.size() * index.dim() elements.
  /// @throw bam::invalid_argument when T is not the index's scalar type
  template <class T>
  [[nodiscard]] array<T> vectors() {
    BAM_EXPECTS(scalar_of<T> == index_.scalar(),
                index_.path() + ": the vectors are " + to_string(index_.scalar()) + ", not " + to_string(scalar_of<T>));
    return file_.map<T>(0);
  }

 private:
  const ivf_index& index_;
  apps::cached_file file_;
};

}  // namespace bam::vec
