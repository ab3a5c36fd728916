// SPDX-License-Identifier: Apache-2.0
// Test support for cache/: a host-memory owner of everything a cache_ref views, over either fake
// backend (test_cache: one read per call; staged_test_cache: the staged path that ships).
#pragma once

#include "cache/cache_ref.hpp"
#include "tests/cache/fake_backend.hpp"
#include "tests/cache/staged_fake_backend.hpp"

#include <chrono>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace bam::test {

/// Sizes of a test cache.
struct test_cache_options {
  std::uint32_t n_slots = 64;                        ///< slots
  std::size_t page_bytes = 512;                      ///< bytes per page
  std::vector<std::uint64_t> range_pages{4096};      ///< pages of each range
  std::chrono::nanoseconds timeout = std::chrono::seconds(5);  ///< wait limit
  std::uint32_t stat_shards = 4;                     ///< counter shards
};

/**
 * @brief Owns a fake_store and the zeroed arrays of one cache, in host memory (the CPU stand-in
 * for the GPU owner, bam::page_cache).
 * @tparam Backend fake_backend or staged_fake_backend: a view holding a `fake_store*`
 */
template <class Backend>
class basic_test_cache {
 public:
  using backend_type = Backend;                 ///< the fake behind the cache
  using ref_type = cache::cache_ref<Backend>;  ///< the view under test

  explicit basic_test_cache(const test_cache_options& o)
      : store_(o.page_bytes, o.range_pages),
        states_(o.n_slots), tags_(o.n_slots), data_(std::size_t{o.n_slots} * o.page_bytes),
        stats_(cache::stats_ref<>::words(static_cast<std::uint32_t>(o.range_pages.size()), o.stat_shards)),
        options_{o.page_bytes, static_cast<std::uint64_t>(o.timeout.count())} {
    for (const std::uint64_t pages : o.range_pages) entries_.emplace_back(pages);
    for (auto& e : entries_) tables_.emplace_back(cuda::std::span<std::uint32_t>(e));
  }

  /// The view kernels (here: threads) use.
  ref_type ref() {
    const cache::cache_storage<> storage{states_, tags_, data_, &hand_, &admission_, tables_, stats_};
    return ref_type(storage, options_, Backend{&store_});
  }

  fake_store& store() { return store_; }  ///< the backend's store and knobs
  /// A table entry (an atomic load: threads may be running).
  cache::page_entry entry(std::uint32_t range, std::uint64_t page) {
    return tables_[range].load(page);
  }
  /// A slot's state word (an atomic load: threads may be running).
  cache::page_state state(std::uint32_t slot) { return ref().slots().load(slot); }

 private:
  fake_store store_;
  std::vector<std::uint32_t> states_;
  std::vector<std::uint64_t> tags_;
  std::vector<std::byte> data_;
  std::uint64_t hand_ = 0;
  std::uint64_t admission_ = 0;
  std::vector<std::vector<std::uint32_t>> entries_;
  std::vector<cache::page_table_ref<>> tables_;
  std::vector<std::uint64_t> stats_;
  cache::cache_options options_;
};

using test_cache = basic_test_cache<fake_backend>;                ///< reads one page per call
using staged_test_cache = basic_test_cache<staged_fake_backend>;  ///< reads as nvme_backend does

static_assert(std::is_trivially_copyable_v<test_cache::ref_type>);
static_assert(std::is_trivially_copyable_v<staged_test_cache::ref_type>);

}  // namespace bam::test
