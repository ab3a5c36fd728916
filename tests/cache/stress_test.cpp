// SPDX-License-Identifier: Apache-2.0
// Stress tests: many threads (single lanes and cpu_warps) read and write random pages of a
// synthetic store through a cache far smaller than the data; every read is verified. Each case
// runs over the unstaged and the staged fake backend.
#include "cache/cache_ref.hpp"
#include "tests/cache/cache_kinds.hpp"
#include "tests/cache/fake_backend.hpp"
#include "tests/cache/stress_config.hpp"
#include "tests/cache/test_cache.hpp"
#include "tests/support/cpu_warp.hpp"
#include "tests/support/thread_team.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace bam::test {
namespace {

constexpr std::uint64_t n_pages = 4096;
constexpr std::size_t page_bytes = 512;
constexpr std::size_t words_per_page = page_bytes / sizeof(std::uint64_t);

/// Outcomes the threads tally.
struct tally {
  std::atomic<std::uint64_t> reads{0};
  std::atomic<std::uint64_t> wrong{0};
  std::atomic<std::uint64_t> failed{0};
};

/// Checks what every stress run must leave behind: all pins dropped, no overlapping backend calls,
/// every lane request counted as a hit, a miss or a coalesced request.
template <class Cache>
void expect_quiescent(Cache& c, std::uint32_t n_slots) {
  for (std::uint32_t slot = 0; slot < n_slots; ++slot) EXPECT_EQ(c.state(slot).pins(), 0U) << slot;
  EXPECT_EQ(c.store().overlaps.load(), 0U);
  const cache::cache_stats s = c.ref().stats().total();
  EXPECT_EQ(s.hits + s.misses + s.coalesced, s.accesses);
  EXPECT_GT(s.evictions, 0U);
}

template <class Cache>
class CacheStress : public ::testing::Test {};
TYPED_TEST_SUITE(CacheStress, cache_kinds, cache_kind_names);

TYPED_TEST(CacheStress, SingleLaneReadersVerifyEveryRead) {
  constexpr std::uint32_t n_slots = 64;
  TypeParam c({.n_slots = n_slots, .page_bytes = page_bytes, .range_pages = {n_pages}});
  const auto ref = c.ref();
  tally t;
  constexpr unsigned iterations = 1500 * stress_scale;
  run_team(8, [&](unsigned id) {
    std::mt19937_64 rng(id);
    single_lane lane;
    for (unsigned i = 0; i < iterations; ++i) {
      // A hot set of 48 pages half the time, so hits and refills of recently evicted pages mix.
      const std::uint64_t page = (rng() % 2) ? rng() % 48 : rng() % n_pages;
      const std::size_t offset = 8 * (rng() % words_per_page);
      std::uint64_t v = 0;
      if (ref.load(lane, {0, page}, offset, v) != status::ok) {
        ++t.failed;
      } else if (v != pattern_word(0, page, offset)) {
        ++t.wrong;
      }
      ++t.reads;
    }
  });
  EXPECT_EQ(t.wrong.load(), 0U);
  EXPECT_EQ(t.failed.load(), 0U);
  EXPECT_EQ(ref.stats().total().accesses, t.reads.load());
  EXPECT_GT(ref.stats().total().hits, 0U);
  expect_quiescent(c, n_slots);
}

/// `n_warps` warps of `Lanes` lanes; lanes of a warp share a base page so that some coalesce.
template <class Cache, unsigned Lanes>
void warp_readers(unsigned n_warps, std::uint32_t n_slots, unsigned iterations) {
  Cache c({.n_slots = n_slots, .page_bytes = page_bytes, .range_pages = {n_pages, n_pages / 2}});
  const auto ref = c.ref();
  c.store().delay_us = 20;  // widen the windows between claim, fill and publish
  tally t;
  run_team(n_warps, [&](unsigned w) {
    cpu_warp<Lanes>().run([&](auto& lane) {
      std::mt19937_64 shared(w);             // the same sequence on every lane of the warp
      std::mt19937_64 own(w * 64 + lane.rank());
      for (unsigned i = 0; i < iterations; ++i) {
        const std::uint64_t base = shared();
        const std::uint32_t range = static_cast<std::uint32_t>(base % 2);
        const std::uint64_t span = range == 0 ? n_pages : n_pages / 2;
        const std::uint64_t page = (own() % 4 == 0) ? own() % span : (base / 2 + lane.rank() % 3) % span;
        const std::size_t offset = 8 * (own() % words_per_page);
        std::uint64_t v = 0;
        if (ref.load(lane, {range, page}, offset, v) != status::ok) {
          ++t.failed;
        } else if (v != pattern_word(range, page, offset)) {
          ++t.wrong;
        }
        ++t.reads;
      }
    });
  });
  EXPECT_EQ(t.wrong.load(), 0U);
  EXPECT_EQ(t.failed.load(), 0U);
  const cache::cache_stats s = ref.stats().total();
  EXPECT_EQ(s.accesses, t.reads.load());
  EXPECT_GT(s.coalesced, 0U);
  expect_quiescent(c, n_slots);
}

TYPED_TEST(CacheStress, Warp8ReadersVerifyEveryRead) {
  warp_readers<TypeParam, 8>(4, 64, 150 * stress_scale);
}

TYPED_TEST(CacheStress, Warp32ReadersVerifyEveryRead) {
  warp_readers<TypeParam, 32>(2, 128, 60 * stress_scale);
}

TYPED_TEST(CacheStress, WritesSurviveEvictionAndFlush) {
  constexpr std::uint32_t n_slots = 32;
  constexpr std::uint64_t pages = 512;
  constexpr unsigned n_warps = 3;
  constexpr unsigned lanes = 8;
  TypeParam c({.n_slots = n_slots, .page_bytes = page_bytes, .range_pages = {pages}});
  const auto ref = c.ref();
  // Word `w * lanes + r` of every page belongs to lane r of warp w, or to single-lane thread
  // `w - n_warps`: no two writers share a word, and each owner knows what its words must hold.
  constexpr unsigned n_single = 4;
  constexpr unsigned owners = n_warps * lanes + n_single;
  static_assert(owners <= words_per_page);
  std::vector<std::vector<std::uint64_t>> expected(owners, std::vector<std::uint64_t>(pages));
  for (unsigned o = 0; o < owners; ++o) {
    for (std::uint64_t p = 0; p < pages; ++p) expected[o][p] = pattern_word(0, p, 8 * o);
  }
  tally t;
  const unsigned iterations = 100 * stress_scale;
  auto work = [&](auto& lane, unsigned owner, std::mt19937_64& shared) {
    std::mt19937_64 own(owner);
    for (unsigned i = 0; i < iterations; ++i) {
      const std::uint64_t page = (shared() + own() % 2) % pages;
      const std::size_t offset = 8 * owner;
      if (own() % 2) {
        const std::uint64_t value = (std::uint64_t{owner} << 48) | (i + 1);
        if (ref.store(lane, {0, page}, offset, value) == status::ok) {
          expected[owner][page] = value;
        } else {
          ++t.failed;
        }
      } else {
        std::uint64_t v = 0;
        if (ref.load(lane, {0, page}, offset, v) != status::ok) {
          ++t.failed;
        } else if (v != expected[owner][page]) {
          ++t.wrong;
        }
      }
    }
  };
  run_team(n_warps + n_single, [&](unsigned w) {
    std::mt19937_64 shared(w);
    if (w >= n_warps) {
      single_lane lane;
      work(lane, n_warps * lanes + (w - n_warps), shared);
      return;
    }
    cpu_warp<lanes>().run([&](auto& lane) {
      std::mt19937_64 mine = shared;
      work(lane, w * lanes + lane.rank(), mine);
    });
  });
  EXPECT_EQ(t.wrong.load(), 0U);
  EXPECT_EQ(t.failed.load(), 0U);
  EXPECT_GT(ref.stats().total().write_backs, 0U);
  EXPECT_EQ(ref.flush(), status::ok);
  std::uint64_t stale = 0;
  for (unsigned o = 0; o < owners; ++o) {
    for (std::uint64_t p = 0; p < pages; ++p) {
      std::uint64_t w = 0;
      std::memcpy(&w, c.store().page(0, p) + 8 * o, sizeof w);
      stale += (w != expected[o][p]);
    }
  }
  EXPECT_EQ(stale, 0U) << "the store holds every last write after the flush";
  expect_quiescent(c, n_slots);
}

}  // namespace
}  // namespace bam::test
