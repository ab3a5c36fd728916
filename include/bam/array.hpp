// SPDX-License-Identifier: Apache-2.0
// bam::array<T>: what a kernel indexes. A trivially copyable view of one mapped range of storage
// through the page cache: `T x = a[i]` reads, `a.store(i, x)` writes (the page becomes dirty),
// `a.fetch_add(i, x)` updates atomically, `a.pin_page(g, i)` keeps one page for many reads,
// `a.read_range(g, first, n, dst)` reads a span cooperatively, and `a.prefetch(g, first, n)`
// puts the reads of a span's missing pages in flight ahead of use. `a.read_only()` is the same
// view without stores (bam::read_only_array<T>), for kernels that only read.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/group_copy.hpp>
#include <bam/device_error.hpp>
#include <bam/lane_group.hpp>
#include <bam/status.hpp>

#include "backend/nvme_backend.hpp"
#include "cache/cache_ref.hpp"

#if defined(__CUDACC__)
#include <bam/gpu/warp_group.cuh>
#endif

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

namespace bam {

/**
 * @brief A page of an array held pinned for the group that asked for it (RAII: the destructor
 * releases it, collectively — every lane of the group must leave the scope together).
 */
template <class T, class Cache, class Group>
class pinned_page {
 public:
  BAM_HD pinned_page(const Cache& cache, Group& g, cache::page_pin pin, std::uint64_t first, std::uint64_t count)
      : cache_(cache), g_(g), pin_(pin), first_(first), count_(count) {}
  pinned_page(const pinned_page&) = delete;
  pinned_page& operator=(const pinned_page&) = delete;
  BAM_HD ~pinned_page() { cache_.release(g_, pin_); }

  [[nodiscard]] BAM_HD status result() const { return pin_.result; }
  [[nodiscard]] BAM_HD bool ok() const { return pin_.result == status::ok; }
  /// Index of the page's first element in the array, and how many of its elements exist.
  [[nodiscard]] BAM_HD std::uint64_t first() const { return first_; }
  [[nodiscard]] BAM_HD std::uint64_t size() const { return count_; }
  /// Element `first() + j`; precondition: ok() and j < size().
  [[nodiscard]] BAM_HD const T& operator[](std::uint64_t j) const {
    return reinterpret_cast<const T*>(pin_.data)[j];
  }

 private:
  const Cache& cache_;
  Group& g_;
  cache::page_pin pin_;
  std::uint64_t first_, count_;
};

/**
 * @brief A typed, read-only view of a mapped range, passed to kernels by value: the reads of
 * basic_array and nothing that writes (cuCollections' ref built with its find operations only).
 *
 * Element i lives on page i / elems_per_page() at byte (i % elems_per_page()) * sizeof(T);
 * elements never straddle pages. Failed accesses (out-of-range index, NVMe error, timeout)
 * return T{} and are recorded in the owning page_cache's error slot; page_cache::check() turns
 * the first into an exception after the kernel. Obtained from an array with
 * basic_array::read_only() (or by conversion); it reads the same cache as the array, so it sees
 * the array's stores.
 *
 * @tparam T trivially copyable element type whose size divides the page size
 * @note Calls without a group argument are collective over the calling warp's active lanes on
 * the GPU (they coalesce lanes that want the same page) and single-lane on the host.
 */
template <class T, class Backend = nvme_backend>
class basic_read_only_array {
  static_assert(std::is_trivially_copyable_v<T>, "bam::array elements must be trivially copyable");

 public:
  using value_type = T;
  using cache_type = cache::cache_ref<Backend>;

  BAM_HD basic_read_only_array(cache_type cache, std::uint32_t range, std::uint64_t size, device_error* errors)
      : cache_(cache), errors_(errors), size_(size), range_(range),
        per_page_(std::uint32_t(cache.page_bytes() / sizeof(T))) {}

  [[nodiscard]] BAM_HD std::uint64_t size() const { return size_; }
  [[nodiscard]] BAM_HD std::uint32_t range_id() const { return range_; }
  [[nodiscard]] BAM_HD std::uint32_t elems_per_page() const { return per_page_; }
  [[nodiscard]] BAM_HD const cache_type& cache() const { return cache_; }

  /// Reads element `i`.
  [[nodiscard]] BAM_HD T operator[](std::uint64_t i) const { return load(i); }

  [[nodiscard]] BAM_HD T load(std::uint64_t i) const {
    auto g = current_group();
    T v{};
    (void)load(g, i, v);
    return v;
  }

  /// Reads element `i` as a member of group `g` (collective); returns the status.
  template <lane_group Group>
  BAM_HD status load(Group& g, std::uint64_t i, T& out) const {
    const std::uint64_t page = checked(i) ? i / per_page_ : invalid_page();
    const status st = cache_.load(g, key(page), (i % per_page_) * sizeof(T), out);
    if (st != status::ok) report(st, i);
    return st;
  }

  /**
   * @brief Pins the page holding element `i` for the group (collective; lanes may name
   * different pages). Read many elements of it through the returned object, then let it go.
   */
  template <lane_group Group>
  [[nodiscard]] BAM_HD pinned_page<T, cache_type, Group> pin_page(Group& g, std::uint64_t i) const {
    const std::uint64_t page = checked(i) ? i / per_page_ : invalid_page();
    const cache::page_pin pin = cache_.acquire(g, key(page), cache::access_mode::read);
    if (pin.result != status::ok) report(pin.result, i);
    const std::uint64_t first = page * per_page_;
    const std::uint64_t count = first < size_ ? (size_ - first < per_page_ ? size_ - first : per_page_) : 0;
    return pinned_page<T, cache_type, Group>(cache_, g, pin, first, count);
  }

  /**
   * @brief Starts reading the pages of elements [first, first + n) that are neither resident
   * nor being read, g.size() pages a round, and returns when the group's reads completed; it
   * pins nothing and never waits for other threads (cache_ref::prefetch). A hint: pages the
   * cache has no free slot for are skipped, and later accesses still check everything.
   * @pre Collective: every member passes the same first and n; ranks are 0..size()-1.
   */
  template <lane_group Group>
  BAM_HD void prefetch(Group& g, std::uint64_t first, std::uint64_t n) const {
    if (n == 0) return;
    const std::uint64_t p0 = first / per_page_, p1 = (first + n - 1) / per_page_ + 1;
    for (std::uint64_t base = p0; base < p1; base += g.size()) {
      const std::uint64_t page = base + g.rank();
      cache_.prefetch(g, key(page), page < p1 && checked(page * per_page_));
    }
  }

  /**
   * @brief Reads elements [first, first + n) into `dst` cooperatively: every lane of `g` passes
   * the same arguments; the group pins each page once and its lanes copy elements strided.
   * @return ok, or the first failure (elements of failed pages are left untouched)
   */
  template <lane_group Group>
  BAM_HD status read_range(Group& g, std::uint64_t first, std::uint64_t n, T* dst) const {
    status result = status::ok;
    std::uint64_t i = first;
    while (i < first + n) {
      const std::uint64_t page = checked(i) ? i / per_page_ : invalid_page();
      const std::uint64_t page_end = (i / per_page_ + 1) * per_page_;
      const std::uint64_t end = page_end < first + n ? page_end : first + n;
      const cache::page_pin pin = cache_.acquire(g, key(page), cache::access_mode::read);
      if (pin.result == status::ok) {
        detail::group_copy(g.rank(), g.size(), reinterpret_cast<const T*>(pin.data) + i % per_page_, dst + (i - first),
                           end - i);
      } else if (result == status::ok) {
        result = pin.result;
        if (g.rank() == 0) report(pin.result, i);
      }
      cache_.release(g, pin);
      i = end;
    }
    return result;
  }

 protected:
  BAM_HD static auto current_group() {
#if defined(__CUDA_ARCH__)
    return warp_group{};
#else
    return single_lane{};
#endif
  }
  BAM_HD bool checked(std::uint64_t i) const { return i < size_; }
  BAM_HD static constexpr std::uint64_t invalid_page() { return ~std::uint64_t{0} >> 1; }
  BAM_HD cache::page_key key(std::uint64_t page) const { return cache::page_key{range_, page}; }
  /// Records a failed access; NVMe errors were already recorded, with their command, by the
  /// backend.
  BAM_HD void report(status st, std::uint64_t i) const {
    if (st == status::io_error) return;
    device_error e{};
    e.kind = device_error_kind::access;
    e.status = std::uint8_t(st);
    e.range = range_;
    e.index = i;
    record_error(errors_, e);
  }

  cache_type cache_;  // cache_ref has no empty state: a view always names a cache
  device_error* errors_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint32_t range_ = 0;
  std::uint32_t per_page_ = 0;
};

/**
 * @brief A typed view of a mapped range, passed to kernels by value: the reads of
 * basic_read_only_array, plus stores and atomic updates.
 *
 * A kernel that only reads can take `a.read_only()` (or the array itself, converted), so that
 * a store in it does not compile.
 *
 * @tparam T trivially copyable element type whose size divides the page size
 * @note Calls without a group argument are collective over the calling warp's active lanes on
 * the GPU and single-lane on the host, as the reads are.
 */
template <class T, class Backend = nvme_backend>
class basic_array : public basic_read_only_array<T, Backend> {
  using reads = basic_read_only_array<T, Backend>;
  using reads::cache_, reads::checked, reads::current_group, reads::invalid_page, reads::key, reads::per_page_,
      reads::report;

 public:
  using typename reads::cache_type;
  using typename reads::value_type;

  using reads::reads;

  /// The read-only view of the same range (kernels that must not write take this).
  [[nodiscard]] BAM_HD reads read_only() const { return *this; }

  /// Writes element `i`; its page is written back on eviction or page_cache::flush().
  BAM_HD void store(std::uint64_t i, const T& v) const {
    auto g = current_group();
    (void)store(g, i, v);
  }
  /// Atomically adds `v` to element `i` (device-scope atomic on the cached copy); returns the
  /// old value. Concurrent fetch_adds of any lanes combine; the page becomes dirty.
  BAM_HD T fetch_add(std::uint64_t i, T v) const
    requires std::is_integral_v<T> || std::is_floating_point_v<T>
  {
    auto g = current_group();
    const std::uint64_t page = checked(i) ? i / per_page_ : invalid_page();
    const cache::page_pin pin = cache_.acquire(g, key(page), cache::access_mode::write);
    T old{};
    if (pin.result == status::ok) {
      T* p = reinterpret_cast<T*>(pin.data) + i % per_page_;
      old = cuda::atomic_ref<T, cuda::thread_scope_device>(*p).fetch_add(v, cuda::std::memory_order_relaxed);
    } else {
      report(pin.result, i);
    }
    cache_.release(g, pin);
    return old;
  }

  /// Writes element `i` as a member of group `g` (collective); returns the status.
  template <lane_group Group>
  BAM_HD status store(Group& g, std::uint64_t i, const T& v) const {
    const std::uint64_t page = checked(i) ? i / per_page_ : invalid_page();
    const status st = cache_.store(g, key(page), (i % per_page_) * sizeof(T), v);
    if (st != status::ok) report(st, i);
    return st;
  }
};

/// The flagship view over the NVMe backend.
template <class T>
using array = basic_array<T>;

/// The read-only view over the NVMe backend (array<T>::read_only()).
template <class T>
using read_only_array = basic_read_only_array<T>;

static_assert(std::is_trivially_copyable_v<array<std::uint64_t>>);
static_assert(std::is_trivially_copyable_v<read_only_array<std::uint64_t>>);

}  // namespace bam
