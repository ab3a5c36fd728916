// SPDX-License-Identifier: Apache-2.0
// Protocol tests of cache_ref, over the unstaged and the staged fake backend: exact statistics,
// eviction with write-back, flush, and every failure status, single-threaded and (per-lane
// failures) in a cpu_warp.
#include "cache/cache_ref.hpp"
#include "tests/cache/cache_kinds.hpp"
#include "tests/cache/fake_backend.hpp"
#include "tests/cache/test_cache.hpp"
#include "tests/support/cpu_warp.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>

namespace bam::test {
namespace {

using cache::access_mode;
using cache::page_key;
using bam::single_lane;
using namespace std::chrono_literals;

template <class Ref>
std::uint64_t load_word(const Ref& ref, page_key key, std::size_t offset,
                        status expected = status::ok) {
  single_lane lane;
  std::uint64_t value = 0;
  EXPECT_EQ(ref.load(lane, key, offset, value), expected);
  return value;
}

template <class Ref>
void store_word(const Ref& ref, page_key key, std::size_t offset, std::uint64_t value) {
  single_lane lane;
  EXPECT_EQ(ref.store(lane, key, offset, value), status::ok);
}

std::uint64_t stored_word(const fake_store& store, page_key key, std::size_t offset) {
  std::uint64_t w = 0;
  std::memcpy(&w, store.page(key.range, key.page) + offset, sizeof w);
  return w;
}

/// What each lane of a cpu_warp<4> got from one load.
struct warp_loads {
  std::array<status, 4> result{};
  std::array<std::uint64_t, 4> value{};
};

/// Lane r of a cpu_warp<4> loads word 8 of page `pages[r]` of range 0 (collectively).
template <class Ref>
warp_loads load_in_warp(const Ref& ref, const std::array<std::uint64_t, 4>& pages) {
  warp_loads got;
  cpu_warp<4>().run([&](auto& lane) {
    const unsigned r = lane.rank();
    got.result[r] = ref.load(lane, page_key{0, pages[r]}, 8, got.value[r]);
  });
  return got;
}

template <class Cache>
class CacheRef : public ::testing::Test {};
TYPED_TEST_SUITE(CacheRef, cache_kinds, cache_kind_names);

TYPED_TEST(CacheRef, HitsMissesAndBytesAreExact) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}});
  const auto ref = c.ref();
  EXPECT_EQ(load_word(ref, {0, 0}, 8), pattern_word(0, 0, 8));
  EXPECT_EQ(load_word(ref, {0, 0}, 504), pattern_word(0, 0, 504));
  EXPECT_EQ(load_word(ref, {0, 1}, 0), pattern_word(0, 1, 0));
  const cache::cache_stats s = ref.stats().total();
  EXPECT_EQ(s.accesses, 3U);
  EXPECT_EQ(s.hits, 1U);
  EXPECT_EQ(s.misses, 2U);
  EXPECT_EQ(s.coalesced, 0U);
  EXPECT_EQ(s.evictions, 0U);
  EXPECT_EQ(s.write_backs, 0U);
  EXPECT_EQ(s.bytes_read, 1024U);
  EXPECT_EQ(s.bytes_written, 0U);
  EXPECT_EQ(s.failures, 0U);
  EXPECT_EQ(c.store().reads.load(), 2U);
  for (std::uint32_t slot = 0; slot < 4; ++slot) EXPECT_EQ(c.state(slot).pins(), 0U) << "all released";
}

TYPED_TEST(CacheRef, EvictionFollowsTheClockAndWritesDirtyPagesBack) {
  TypeParam c({.n_slots = 2, .page_bytes = 512, .range_pages = {16}});
  const auto ref = c.ref();
  store_word(ref, {0, 0}, 16, 0xABCD);       // slot 0, dirty
  EXPECT_EQ(load_word(ref, {0, 1}, 0), pattern_word(0, 1, 0));  // slot 1
  EXPECT_EQ(load_word(ref, {0, 2}, 0), pattern_word(0, 2, 0));  // both referenced: slot 0 goes
  EXPECT_TRUE(c.entry(0, 0).empty());
  EXPECT_EQ(c.entry(0, 1).slot(), 1U);
  EXPECT_EQ(c.entry(0, 2).slot(), 0U);
  EXPECT_EQ(stored_word(c.store(), {0, 0}, 16), 0xABCDU) << "written back on eviction";
  EXPECT_EQ(stored_word(c.store(), {0, 0}, 24), pattern_word(0, 0, 24));
  EXPECT_EQ(load_word(ref, {0, 0}, 16), 0xABCDU) << "read back from the backend";
  const cache::cache_stats s = ref.stats().total();
  EXPECT_EQ(s.evictions, 2U);
  EXPECT_EQ(s.write_backs, 1U);
  EXPECT_EQ(s.bytes_written, 512U);
  EXPECT_EQ(s.misses, 4U);
}

TYPED_TEST(CacheRef, FlushWritesDirtyPagesOnceAndCleansThem) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}});
  const auto ref = c.ref();
  for (std::uint64_t p = 0; p < 3; ++p) store_word(ref, {0, p}, 8 * p, 100 + p);
  EXPECT_EQ(load_word(ref, {0, 7}, 0), pattern_word(0, 7, 0));
  EXPECT_EQ(ref.flush(), status::ok);
  EXPECT_EQ(c.store().writes.load(), 3U) << "only the dirty pages";
  for (std::uint64_t p = 0; p < 3; ++p) EXPECT_EQ(stored_word(c.store(), {0, p}, 8 * p), 100 + p);
  for (std::uint32_t slot = 0; slot < 4; ++slot) {
    EXPECT_FALSE(c.state(slot).dirty());
    EXPECT_EQ(c.state(slot).state(), cache::slot_state::valid);
  }
  EXPECT_EQ(ref.flush(), status::ok);
  EXPECT_EQ(c.store().writes.load(), 3U) << "clean pages are not written again";
  EXPECT_EQ(ref.stats().total().write_backs, 3U);
  EXPECT_EQ(load_word(ref, {0, 1}, 8), 101U) << "still resident after the flush";
  EXPECT_EQ(ref.stats().total().hits, 1U);
}

TYPED_TEST(CacheRef, OutOfRangeTouchesNothing) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}});
  const auto ref = c.ref();
  load_word(ref, {1, 0}, 0, status::out_of_range);
  load_word(ref, {0, 16}, 0, status::out_of_range);
  load_word(ref, {0, 3}, 505, status::out_of_range);
  load_word(ref, {0, 3}, ~std::size_t{0}, status::out_of_range);
  EXPECT_EQ(ref.stats().total().accesses, 0U);
  EXPECT_EQ(c.store().reads.load(), 0U);
}

TYPED_TEST(CacheRef, ReadFailureRollsBack) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}});
  const auto ref = c.ref();
  c.store().fail_tag = cache::make_tag({0, 3});
  load_word(ref, {0, 3}, 0, status::io_error);
  EXPECT_TRUE(c.entry(0, 3).empty());
  for (std::uint32_t slot = 0; slot < 4; ++slot) EXPECT_EQ(c.state(slot), cache::page_state{});
  c.store().fail_tag = fake_store::no_tag;
  EXPECT_EQ(load_word(ref, {0, 3}, 0), pattern_word(0, 3, 0));
}

// The only victim's write-back keeps failing: the fill tries it again until its time limit,
// then reports the failure; the page stays resident and dirty.
TYPED_TEST(CacheRef, WriteBackFailureKeepsThePageDirtyAndResident) {
  TypeParam c({.n_slots = 1, .page_bytes = 512, .range_pages = {16}, .timeout = 50ms});
  const auto ref = c.ref();
  store_word(ref, {0, 0}, 0, 77);
  c.store().fail_tag = cache::make_tag({0, 0});
  load_word(ref, {0, 1}, 0, status::io_error);
  EXPECT_TRUE(c.entry(0, 1).empty());
  EXPECT_EQ(c.entry(0, 0).slot(), 0U);
  EXPECT_TRUE(c.state(0).dirty());
  EXPECT_EQ(load_word(ref, {0, 0}, 0), 77U);
  c.store().fail_tag = fake_store::no_tag;
  EXPECT_EQ(load_word(ref, {0, 1}, 0), pattern_word(0, 1, 0));
  EXPECT_EQ(stored_word(c.store(), {0, 0}, 0), 77U);
}

TYPED_TEST(CacheRef, HungReadEndsInTimeout) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}, .timeout = 50ms});
  const auto ref = c.ref();
  c.store().hang_tag = cache::make_tag({0, 5});
  const auto start = std::chrono::steady_clock::now();
  load_word(ref, {0, 5}, 0, status::timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(ref.stats().total().failures, 1U);
  EXPECT_TRUE(c.entry(0, 5).empty());
  c.store().hang_release = true;
  EXPECT_EQ(load_word(ref, {0, 5}, 0), pattern_word(0, 5, 0));
}

TYPED_TEST(CacheRef, AFailedReadFailsOnlyTheLanesOfItsPage) {
  TypeParam c({.n_slots = 8, .page_bytes = 512, .range_pages = {16}});
  const auto ref = c.ref();
  c.store().fail_tag = cache::make_tag({0, 6});
  constexpr std::array<std::uint64_t, 4> pages{4, 6, 5, 6};  // lanes 1 and 3 share page 6
  const warp_loads first = load_in_warp(ref, pages);
  for (const unsigned r : {0U, 2U}) {
    EXPECT_EQ(first.result[r], status::ok) << r;
    EXPECT_EQ(first.value[r], pattern_word(0, pages[r], 8)) << r;
  }
  EXPECT_EQ(first.result[1], status::io_error);
  EXPECT_EQ(first.result[3], status::io_error) << "a peer shares its leader's failure";
  EXPECT_EQ(c.store().reads.load(), 3U) << "one read per distinct page";
  EXPECT_TRUE(c.entry(0, 6).empty());
  unsigned valid = 0;
  for (std::uint32_t slot = 0; slot < 8; ++slot) {
    EXPECT_EQ(c.state(slot).pins(), 0U) << slot;
    valid += c.state(slot).state() == cache::slot_state::valid;
  }
  EXPECT_EQ(valid, 2U) << "the failed fill's slot is invalid again";
  c.store().fail_tag = fake_store::no_tag;
  const warp_loads second = load_in_warp(ref, pages);
  for (unsigned r = 0; r < 4; ++r) {
    EXPECT_EQ(second.result[r], status::ok) << r;
    EXPECT_EQ(second.value[r], pattern_word(0, pages[r], 8)) << r;
  }
  EXPECT_EQ(c.store().reads.load(), 4U) << "pages 4 and 5 are hits";
}

TYPED_TEST(CacheRef, AHungLaneTimesOutWhileItsPeersSucceed) {
  TypeParam c({.n_slots = 8, .page_bytes = 512, .range_pages = {16}, .timeout = 50ms});
  const auto ref = c.ref();
  c.store().hang_tag = cache::make_tag({0, 7});
  constexpr std::array<std::uint64_t, 4> pages{4, 7, 5, 9};
  const auto start = std::chrono::steady_clock::now();
  const warp_loads got = load_in_warp(ref, pages);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(got.result[1], status::timeout);
  for (const unsigned r : {0U, 2U, 3U}) {
    EXPECT_EQ(got.result[r], status::ok) << r;
    EXPECT_EQ(got.value[r], pattern_word(0, pages[r], 8)) << r;
  }
  EXPECT_EQ(c.store().hung.load(), 1U);
  EXPECT_TRUE(c.entry(0, 7).empty());
  c.store().hang_release = true;
  EXPECT_EQ(load_word(ref, {0, 7}, 8), pattern_word(0, 7, 8));
}

TYPED_TEST(CacheRef, FailedFlushKeepsThePageDirtyForTheNextFlush) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}});
  const auto ref = c.ref();
  store_word(ref, {0, 1}, 8, 11);
  store_word(ref, {0, 2}, 8, 22);
  c.store().fail_tag = cache::make_tag({0, 1});
  EXPECT_EQ(ref.flush(), status::io_error);
  const std::uint32_t failed = c.entry(0, 1).slot();
  const std::uint32_t written = c.entry(0, 2).slot();
  EXPECT_EQ(c.state(failed).state(), cache::slot_state::valid);
  EXPECT_TRUE(c.state(failed).dirty()) << "a failed write-back leaves the page dirty";
  EXPECT_FALSE(c.state(written).dirty());
  EXPECT_EQ(stored_word(c.store(), {0, 1}, 8), pattern_word(0, 1, 8));
  EXPECT_EQ(stored_word(c.store(), {0, 2}, 8), 22U);
  EXPECT_EQ(load_word(ref, {0, 1}, 8), 11U) << "still resident with the stored value";
  c.store().fail_tag = fake_store::no_tag;
  EXPECT_EQ(ref.flush(), status::ok);
  EXPECT_EQ(stored_word(c.store(), {0, 1}, 8), 11U) << "the next flush writes it";
  EXPECT_FALSE(c.state(failed).dirty());
  EXPECT_EQ(c.store().writes.load(), 3U) << "page 1 twice, page 2 once";
  EXPECT_EQ(c.store().failed_writes.load(), 1U);
  EXPECT_EQ(ref.stats().total().write_backs, 2U);
}

// A thread that keeps pages pinned while it asks for more breaks acquire()'s contract: it waits
// for admission its own pages hold, and gives up once nothing moved for the time limit.
TYPED_TEST(CacheRef, AcquireWhileHoldingEverySlotTimesOut) {
  TypeParam c({.n_slots = 2, .page_bytes = 512, .range_pages = {16}, .timeout = 30ms});
  const auto ref = c.ref();
  single_lane lane;
  const cache::page_pin a = ref.acquire(lane, {0, 0}, access_mode::read);
  const cache::page_pin b = ref.acquire(lane, {0, 1}, access_mode::write);
  ASSERT_EQ(a.result, status::ok);
  ASSERT_EQ(b.result, status::ok);
  EXPECT_EQ(ref.admission().held_now(), 2U) << "each miss holds its unit until release";
  const auto start = std::chrono::steady_clock::now();
  const cache::page_pin none = ref.acquire(lane, {0, 2}, access_mode::read);
  EXPECT_EQ(none.result, status::timeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 30ms);
  EXPECT_EQ(none.data, nullptr);
  ref.release(lane, none);
  EXPECT_TRUE(c.entry(0, 2).empty()) << "nothing was claimed";
  EXPECT_EQ(c.state(a.slot).pins(), 1U);
  EXPECT_EQ(c.state(b.slot).pins(), 1U);
  ref.release(lane, a);
  ref.release(lane, b);
  EXPECT_EQ(load_word(ref, {0, 2}, 0), pattern_word(0, 2, 0));
}

TYPED_TEST(CacheRef, PrefetchFillsWithoutPinningAndLeavesResidentPagesAlone) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}});
  const auto ref = c.ref();
  single_lane lane;
  ref.prefetch(lane, {0, 3}, true);
  ASSERT_TRUE(c.entry(0, 3).resident());
  EXPECT_EQ(c.state(c.entry(0, 3).slot()).pins(), 0U) << "a prefetch keeps no pin";
  EXPECT_EQ(c.store().reads.load(), 1U);
  ref.prefetch(lane, {0, 3}, true);   // resident: nothing to do
  ref.prefetch(lane, {0, 4}, false);  // not wanted
  ref.prefetch(lane, {0, 16}, true);  // outside the range
  EXPECT_EQ(c.store().reads.load(), 1U);
  EXPECT_TRUE(c.entry(0, 4).empty());
  EXPECT_EQ(load_word(ref, {0, 3}, 40), pattern_word(0, 3, 40));
  const cache::cache_stats s = ref.stats().total();
  EXPECT_EQ(s.misses, 1U) << "the prefetch's fill";
  EXPECT_EQ(s.hits, 1U) << "the load found the page";
  EXPECT_EQ(s.bytes_read, 512U);
  EXPECT_EQ(s.failures, 0U);
}

TYPED_TEST(CacheRef, PrefetchWithEverySlotPinnedSkipsThePageAtOnce) {
  TypeParam c({.n_slots = 2, .page_bytes = 512, .range_pages = {16}, .timeout = 5s});
  const auto ref = c.ref();
  single_lane lane;
  const cache::page_pin a = ref.acquire(lane, {0, 0}, access_mode::read);
  const cache::page_pin b = ref.acquire(lane, {0, 1}, access_mode::read);
  ASSERT_EQ(a.result, status::ok);
  ASSERT_EQ(b.result, status::ok);
  const auto start = std::chrono::steady_clock::now();
  ref.prefetch(lane, {0, 2}, true);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s) << "a prefetch never waits for a victim";
  EXPECT_TRUE(c.entry(0, 2).empty()) << "the claim is given back";
  EXPECT_EQ(c.store().reads.load(), 2U);
  ref.release(lane, a);
  ref.release(lane, b);
  ref.prefetch(lane, {0, 2}, true);
  EXPECT_TRUE(c.entry(0, 2).resident()) << "with a free victim the page is read";
  EXPECT_EQ(load_word(ref, {0, 2}, 8), pattern_word(0, 2, 8));
}

TYPED_TEST(CacheRef, PrefetchLeavesAPageBeingFilledToItsFiller) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16}, .timeout = 5s});
  const auto ref = c.ref();
  c.store().hang_tag = cache::make_tag({0, 5});
  std::thread filler([&] { EXPECT_EQ(load_word(ref, {0, 5}, 0), pattern_word(0, 5, 0)); });
  while (!c.entry(0, 5).filling()) std::this_thread::yield();
  single_lane lane;
  const auto start = std::chrono::steady_clock::now();
  ref.prefetch(lane, {0, 5}, true);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s) << "a prefetch never waits for another filler";
  c.store().hang_release = true;
  filler.join();
  EXPECT_EQ(c.store().reads.load(), 1U) << "one read of the page";
}

TYPED_TEST(CacheRef, RangesAreCountedApart) {
  TypeParam c({.n_slots = 4, .page_bytes = 512, .range_pages = {16, 8}});
  const auto ref = c.ref();
  EXPECT_EQ(load_word(ref, {0, 7}, 64), pattern_word(0, 7, 64));
  EXPECT_EQ(load_word(ref, {1, 7}, 64), pattern_word(1, 7, 64));
  EXPECT_EQ(load_word(ref, {1, 7}, 72), pattern_word(1, 7, 72));
  load_word(ref, {1, 8}, 0, status::out_of_range);
  EXPECT_EQ(ref.stats().of_range(0).accesses, 1U);
  EXPECT_EQ(ref.stats().of_range(1).accesses, 2U);
  EXPECT_EQ(ref.stats().of_range(1).hits, 1U);
  EXPECT_EQ(ref.stats().total().bytes_read, 1024U);
}

TYPED_TEST(CacheRef, LargePages) {
  constexpr std::size_t two_mib = std::size_t{2} << 20;
  static_assert(cache::valid_page_bytes(two_mib, 4096) && cache::valid_page_bytes(512, 512));
  static_assert(!cache::valid_page_bytes(768, 512) && !cache::valid_page_bytes(256, 256));
  TypeParam c({.n_slots = 2, .page_bytes = two_mib, .range_pages = {3}});
  const auto ref = c.ref();
  for (std::uint64_t p = 0; p < 3; ++p) {
    EXPECT_EQ(load_word(ref, {0, p}, two_mib - 8), pattern_word(0, p, two_mib - 8));
  }
  EXPECT_EQ(ref.stats().total().bytes_read, 3 * two_mib);
}

}  // namespace
}  // namespace bam::test
