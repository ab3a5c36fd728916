// SPDX-License-Identifier: Apache-2.0
// bam::vec::rows_view: vectors in plain memory (host, or VRAM for kernels) behind the same
// read_range(g, first, n, dst) call that bam::array<T> offers, so scans are written once over
// "a store" and run over either.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/group_copy.hpp>
#include <bam/lane_group.hpp>
#include <bam/status.hpp>

#include <cstdint>

namespace bam::vec {

/**
 * @brief A trivially copyable view of `size` elements of T in memory the caller can read.
 * @note read_range is collective in the same way as bam::array's: every member passes the same
 * arguments and copies a strided share of the elements (ranks 0..size-1: a full warp or one
 * lane). It does not synchronise: the caller syncs before reading what other members wrote.
 */
template <class T>
class rows_view {
 public:
  rows_view() = default;
  BAM_HD rows_view(const T* data, std::uint64_t size) : data_(data), size_(size) {}

  [[nodiscard]] BAM_HD std::uint64_t size() const { return size_; }
  [[nodiscard]] BAM_HD const T* data() const { return data_; }

  /// As bam::array's prefetch: nothing to do, the rows are in memory.
  template <bam::lane_group Group>
  BAM_HD void prefetch(Group&, std::uint64_t, std::uint64_t) const {}

  template <bam::lane_group Group>
  BAM_HD status read_range(Group& g, std::uint64_t first, std::uint64_t n, T* dst) const {
    if (first > size_ || n > size_ - first) return status::out_of_range;
    bam::detail::group_copy(g.rank(), g.size(), data_ + first, dst, n);
    return status::ok;
  }

 private:
  const T* data_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace bam::vec
