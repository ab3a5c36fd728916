// SPDX-License-Identifier: Apache-2.0
// bam::vec::ivf_index: an IVF index file opened for searching (memory-mapped read-only, every
// section validated). The vectors stay where they are: searches read them through a
// bam::array over a namespace holding the file, or copy them to VRAM.
#pragma once

#include "apps/vector/ivf_format.hpp"
#include "apps/common/mapped_file.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace bam::vec {

class ivf_index {
 public:
  /// @throw bam::invalid_argument naming the file for a bad or truncated index;
  /// bam::system_error when it cannot be read.
  explicit ivf_index(const std::string& path);

  [[nodiscard]] const ivf_header& header() const { return h_; }
  [[nodiscard]] std::string path() const { return map_.path().string(); }
  [[nodiscard]] vec::metric metric() const { return vec::metric(h_.metric); }
  [[nodiscard]] scalar_type scalar() const { return scalar_type(h_.scalar); }
  [[nodiscard]] std::uint32_t dim() const { return h_.dim; }
  [[nodiscard]] std::uint64_t size() const { return h_.n_vectors; }
  [[nodiscard]] std::uint32_t n_lists() const { return h_.n_lists; }

  [[nodiscard]] std::span<const float> centroids() const;        ///< n_lists x dim
  [[nodiscard]] std::span<const std::uint64_t> list_offsets() const;  ///< n_lists + 1 rows
  [[nodiscard]] std::span<const std::int64_t> ids() const;      ///< id of each stored row
  [[nodiscard]] std::span<const std::byte> vectors() const;     ///< rows in list order
  [[nodiscard]] std::uint64_t list_size(std::uint32_t l) const { return list_offsets()[l + 1] - list_offsets()[l]; }

 private:
  template <class T>
  std::span<const T> section(const ivf_section& s) const {
    return {reinterpret_cast<const T*>(map_.bytes().data() + s.offset), s.bytes / sizeof(T)};
  }

  apps::mapped_file map_;
  ivf_header h_{};
};

}  // namespace bam::vec
