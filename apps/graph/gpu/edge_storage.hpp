// SPDX-License-Identifier: Apache-2.0
// Where the kernels read a graph's neighbor and weight arrays from: through bam's page cache
// (cached_edges over a bam::array) or from plain memory a kernel can dereference (pointer_edges
// over VRAM, pinned host memory read zero-copy, cudaMallocManaged memory, or host memory on the
// CPU path). Both offer the same element read and the same warp-cooperative scan, so every
// kernel is written once over an `Edges` type.
#pragma once

#include <bam/array.hpp>
#include <bam/config.hpp>
#include <bam/lane_group.hpp>
#include <bam/status.hpp>

#include <concepts>
#include <cstdint>

namespace bam::graph::gpu {

/**
 * @brief Elements [0, size()) of T, read through the page cache.
 * @note scan() pins each page once for the whole group and hands its elements to the lanes, so a
 * warp reading one adjacency list makes one cache request per page (EMOGI's merged, aligned
 * reads). At most one page is pinned per group at a time.
 */
template <class T>
class cached_edges {
 public:
  using value_type = T;

  BAM_HD explicit cached_edges(array<T> a) : a_(a) {}

  [[nodiscard]] BAM_HD std::uint64_t size() const { return a_.size(); }
  [[nodiscard]] BAM_HD const array<T>& array_view() const { return a_; }
  /// Element i (collective over the calling warp's active lanes on the GPU, see bam::array).
  [[nodiscard]] BAM_HD T operator[](std::uint64_t i) const { return a_[i]; }

  /**
   * @brief Hands elements [first, first + n) to the members of g: in rounds of g.size()
   * consecutive elements, member r gets element base + r and calls visit(index, value), which
   * returns true to stop the scan; the group stops after the first round in which any member
   * asked to.
   * @pre Collective: every member passes the same first and n; ranks are 0..size()-1 (a full
   * warp or a single lane).
   * @return ok, or the status of a page that could not be read (its elements are skipped and the
   * failure is recorded in the cache's error slot for page_cache::check()).
   */
  template <lane_group Group, class Visit>
  BAM_HD status scan(Group& g, std::uint64_t first, std::uint64_t n, Visit&& visit) const {
    const std::uint64_t end = first + n;
    for (std::uint64_t i = first; i < end;) {
      const auto page = a_.pin_page(g, i);
      if (!page.ok()) return page.result();
      const std::uint64_t page_end = page.first() + page.size() < end ? page.first() + page.size() : end;
      for (std::uint64_t base = i; base < page_end; base += g.size()) {
        const std::uint64_t j = base + g.rank();
        const bool stop = j < page_end && visit(j, page[j - page.first()]);
        if (g.ballot(stop) != 0) return status::ok;  // the page is released collectively here
      }
      i = page_end;
    }
    return status::ok;
  }

 private:
  array<T> a_;
};

/**
 * @brief Elements [0, size()) of T in memory the executing side dereferences directly: VRAM,
 * pinned host memory mapped into the GPU (zero-copy), managed memory, or host memory for CPU
 * threads. scan() gives consecutive lanes consecutive elements, so a warp's loads coalesce.
 */
template <class T>
class pointer_edges {
 public:
  using value_type = T;

  pointer_edges() = default;
  BAM_HD pointer_edges(const T* data, std::uint64_t size) : data_(data), size_(size) {}

  [[nodiscard]] BAM_HD std::uint64_t size() const { return size_; }
  [[nodiscard]] BAM_HD const T* data() const { return data_; }
  [[nodiscard]] BAM_HD T operator[](std::uint64_t i) const { return data_[i]; }

  /// As cached_edges::scan; always returns ok (the caller keeps indices below size()).
  template <lane_group Group, class Visit>
  BAM_HD status scan(Group& g, std::uint64_t first, std::uint64_t n, Visit&& visit) const {
    const std::uint64_t end = first + n;
    for (std::uint64_t base = first; base < end; base += g.size()) {
      const std::uint64_t j = base + g.rank();
      const bool stop = j < end && visit(j, data_[j]);
      if (g.ballot(stop) != 0) break;
    }
    return status::ok;
  }

 private:
  const T* data_ = nullptr;
  std::uint64_t size_ = 0;
};

namespace detail_storage {
/// A scan visitor that never stops (used to state the concept below).
struct visit_all {
  template <class T>
  BAM_HD bool operator()(std::uint64_t, T) const { return false; }
};
}  // namespace detail_storage

/// What the kernels need from an `Edges` type (satisfied by cached_edges and pointer_edges).
template <class E>
concept edge_storage = std::is_trivially_copyable_v<E> &&
                       requires(const E& e, std::uint64_t i, single_lane& g, detail_storage::visit_all v) {
                         typename E::value_type;
                         { e.size() } -> std::convertible_to<std::uint64_t>;
                         { e[i] } -> std::convertible_to<typename E::value_type>;
                         { e.scan(g, i, i, v) } -> std::same_as<status>;
                       };

static_assert(edge_storage<cached_edges<std::uint32_t>>);
static_assert(edge_storage<pointer_edges<std::uint64_t>>);

}  // namespace bam::graph::gpu
