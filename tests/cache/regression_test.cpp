// SPDX-License-Identifier: Apache-2.0
// Regression tests for the two bugs the reference design shipped: a page evicted while a reader
// held it, and a reader seeing a slot that was being refilled for another page. Also: a waiter
// for a fill that never finishes gets a timeout instead of hanging. Each case runs over the
// unstaged and the staged fake backend.
#include "cache/cache_ref.hpp"
#include "tests/cache/cache_kinds.hpp"
#include "tests/cache/fake_backend.hpp"
#include "tests/cache/stress_config.hpp"
#include "tests/cache/test_cache.hpp"
#include "tests/support/cpu_warp.hpp"
#include "tests/support/thread_team.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>

namespace bam::test {
namespace {

using cache::access_mode;
using namespace std::chrono_literals;

/// Whether `bytes` are exactly page (range, page) of a fresh store.
bool is_page(const std::byte* bytes, std::uint32_t range, std::uint64_t page, std::size_t n) {
  for (std::size_t o = 0; o < n; ++o) {
    if (bytes[o] != pattern_byte(range, page, o)) return false;
  }
  return true;
}

template <class Cache>
class CacheRegression : public ::testing::Test {};
TYPED_TEST_SUITE(CacheRegression, cache_kinds, cache_kind_names);

TYPED_TEST(CacheRegression, PinnedPageNeverChangesWhileEvictorsSweep) {
  constexpr std::size_t page_bytes = 512;
  TypeParam c({.n_slots = 8, .page_bytes = page_bytes, .range_pages = {256}});
  const auto ref = c.ref();
  std::atomic<bool> pinned{false};
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> changed{0};
  std::atomic<std::uint64_t> failed{0};
  run_team(5, [&](unsigned id) {
    single_lane lane;
    if (id == 0) {  // the holder
      const cache::page_pin pin = ref.acquire(lane, {0, 7}, access_mode::read);
      ASSERT_EQ(pin.result, status::ok);
      pinned = true;
      while (!done.load()) {
        if (!is_page(pin.data, 0, 7, page_bytes)) ++changed;
        if (c.state(pin.slot).state() != cache::slot_state::valid) ++changed;
        std::this_thread::yield();
      }
      ref.release(lane, pin);
      return;
    }
    while (!pinned.load()) std::this_thread::yield();
    std::mt19937_64 rng(id);
    for (unsigned i = 0; i < 1600 * stress_scale; ++i) {  // thrash the other 7 slots
      const std::uint64_t page = rng() % 256;  // page 7 too: readers may share the holder's pin
      std::uint64_t v = 0;
      const bool write = i % 3 == 0 && page != 7;
      const status st = write ? ref.store(lane, {0, page}, 8 * id, std::uint64_t{i})
                              : ref.load(lane, {0, page}, 0, v);
      if (st != status::ok) ++failed;
    }
    if (id == 1) {
      // Let the others finish before telling the holder to stop.
      while (ref.stats().total().accesses < 4 * 1600ULL * stress_scale) std::this_thread::yield();
      done = true;
    }
  });
  EXPECT_EQ(changed.load(), 0U) << "a pinned slot was refilled or written under its reader";
  EXPECT_EQ(failed.load(), 0U);
  EXPECT_GT(ref.stats().total().evictions, 100U) << "the sweep did run";
  EXPECT_GT(ref.stats().total().write_backs, 0U);
}

/// Readers verify whole pages while the backend refills slots one byte at a time.
template <class Cache, unsigned Lanes>
void readers_during_slow_refills(unsigned n_warps, unsigned iterations) {
  constexpr std::size_t page_bytes = 512;
  constexpr std::uint64_t pages = 64;
  Cache c({.n_slots = 2 * Lanes * n_warps, .page_bytes = page_bytes, .range_pages = {pages}});
  const auto ref = c.ref();
  c.store().slow_fill = true;
  std::atomic<std::uint64_t> torn{0};
  std::atomic<std::uint64_t> failed{0};
  run_team(n_warps, [&](unsigned w) {
    cpu_warp<Lanes>().run([&](auto& lane) {
      std::mt19937_64 rng(w * 64 + lane.rank());
      for (unsigned i = 0; i < iterations; ++i) {
        const cache::page_key key{0, rng() % pages};
        const cache::page_pin pin = ref.acquire(lane, key, access_mode::read);
        if (pin.result != status::ok) {
          ++failed;
        } else if (!is_page(pin.data, 0, key.page, page_bytes)) {
          ++torn;
        }
        ref.release(lane, pin);
      }
    });
  });
  EXPECT_EQ(torn.load(), 0U) << "a reader saw a slot that was not (yet, or any more) its page";
  EXPECT_EQ(failed.load(), 0U);
  EXPECT_GT(ref.stats().total().evictions, 50U);
}

TYPED_TEST(CacheRegression, SingleLaneReadersNeverSeeASlotBeingRefilled) {
  readers_during_slow_refills<TypeParam, 1>(6, 100 * stress_scale);
}

TYPED_TEST(CacheRegression, WarpReadersNeverSeeASlotBeingRefilled) {
  readers_during_slow_refills<TypeParam, 4>(3, 40 * stress_scale);
}

TYPED_TEST(CacheRegression, WaiterForAFillThatNeverFinishesTimesOut) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}, .timeout = 50ms});
  const auto ref = c.ref();
  c.store().hang_tag = cache::make_tag({0, 3});
  c.store().hang_honours_deadline = false;  // the filler's backend call does not come back
  status filler = status::timeout;
  std::uint64_t filler_value = 0;
  std::jthread stuck([&] {
    single_lane lane;
    filler = ref.load(lane, {0, 3}, 0, filler_value);
  });
  while (c.store().hung.load() == 0) std::this_thread::yield();
  single_lane lane;
  std::uint64_t v = 0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ref.load(lane, {0, 3}, 0, v), status::timeout);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 50ms);
  EXPECT_LT(waited, 5s);
  EXPECT_EQ(ref.load(lane, {0, 4}, 0, v), status::ok) << "other pages are unaffected";
  c.store().hang_release = true;
  stuck.join();
  EXPECT_EQ(filler, status::ok);
  EXPECT_EQ(filler_value, pattern_word(0, 3, 0));
}

}  // namespace
}  // namespace bam::test
