// SPDX-License-Identifier: Apache-2.0
// Test support for cache/: a host-memory owner of everything a cache_ref views.
#pragma once

#include "cache/cache_ref.hpp"
#include "tests/cache/fake_backend.hpp"

#include <chrono>
#include <cstdint>
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

/// Owns a fake_store and the zeroed arrays of one cache, in host memory (the CPU stand-in for
/// the GPU owner, bam::page_cache).
class test_cache {
 public:
  using ref_type = cache::cache_ref<fake_backend>;  ///< the view under test

  explicit test_cache(const test_cache_options& o)
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
    return ref_type(storage, options_, fake_backend{&store_});
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

static_assert(std::is_trivially_copyable_v<test_cache::ref_type>);

}  // namespace bam::test
