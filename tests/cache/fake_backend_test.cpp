// SPDX-License-Identifier: Apache-2.0
// The test doubles do what the cache tests rely on: fake_store's fault knobs (every n-th read,
// seeded rates) and staged_fake_backend's contract (records without reading, reads per lane in a
// collective finish_reads that costs one ballot when nothing is owed and makes every lane call
// the same collectives).
#include "cache/backend.hpp"
#include "tests/cache/fake_backend.hpp"
#include "tests/cache/staged_fake_backend.hpp"
#include "tests/support/cpu_warp.hpp"

#include <bam/detail/clock.hpp>
#include <bam/lane_group.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace bam::test {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t page_bytes = 512;

/// A slot's worth of bytes, aligned as cache slots are.
struct slot_buffer {
  alignas(16) std::array<std::byte, page_bytes> bytes{};
  cuda::std::span<std::byte> span() { return {bytes.data(), bytes.size()}; }
};

bool holds_page(const slot_buffer& b, std::uint64_t page) {
  for (std::size_t o = 0; o < page_bytes; ++o) {
    if (b.bytes[o] != pattern_byte(0, page, o)) return false;
  }
  return true;
}

/// A transfer of page `page` of range 0 to or from `b`, due within a second unless told.
cache::page_io io_of(std::uint64_t page, slot_buffer& b, std::uint64_t deadline = detail::now_ns() + 1'000'000'000) {
  return cache::page_io{{0, page}, 0, b.span(), deadline};
}

/// One read of `page` through the store into `b`.
status read_into(fake_store& s, slot_buffer& b, std::uint64_t page) { return s.read(io_of(page, b)); }

TEST(FakeStore, EveryNthReadFails) {
  fake_store s(page_bytes, {16});
  s.fail_every_nth_read = 3;
  for (std::uint64_t page = 0; page < 9; ++page) {
    slot_buffer b;
    const bool nth = page % 3 == 2;  // reads 3, 6 and 9
    EXPECT_EQ(read_into(s, b, page), nth ? status::io_error : status::ok) << page;
    EXPECT_EQ(holds_page(b, page), !nth) << page;
    EXPECT_EQ(s.read_failures(0, page), nth ? 1U : 0U) << page;
  }
  EXPECT_EQ(s.failed_reads.load(), 3U);
  EXPECT_EQ(s.reads.load(), 9U);
}

/// Outcomes of `n` reads of page 0 and `n` writes of page 1 (true: failed).
std::vector<bool> outcomes(std::uint64_t seed, std::uint32_t ppm, unsigned n) {
  fake_store s(page_bytes, {2});
  s.fault_seed = seed;
  s.read_fail_ppm = ppm;
  s.write_fail_ppm = ppm;
  std::vector<bool> failed;
  slot_buffer b;
  for (unsigned i = 0; i < n; ++i) failed.push_back(read_into(s, b, 0) != status::ok);
  for (unsigned i = 0; i < n; ++i) {
    failed.push_back(s.write(io_of(1, b)) != status::ok);
  }
  unsigned reads_failed = 0;
  for (unsigned i = 0; i < n; ++i) reads_failed += failed[i];
  EXPECT_EQ(s.failed_reads.load(), reads_failed);
  EXPECT_EQ(s.read_failures(0, 0), reads_failed);
  EXPECT_EQ(s.failed_writes.load(), std::count(failed.begin(), failed.end(), true) - reads_failed);
  return failed;
}

TEST(FakeStore, RateFailuresFollowTheirRateAndSeed) {
  constexpr unsigned n = 4000;
  const std::vector<bool> a = outcomes(7, 250'000, n);
  const auto reads_failed = std::count(a.begin(), a.begin() + n, true);
  const auto writes_failed = std::count(a.begin() + n, a.end(), true);
  EXPECT_GT(reads_failed, 800);  // a quarter of 4000 is 1000; the standard deviation is 27
  EXPECT_LT(reads_failed, 1200);
  EXPECT_GT(writes_failed, 800);
  EXPECT_LT(writes_failed, 1200);
  EXPECT_EQ(outcomes(7, 250'000, n), a) << "the same seed draws the same failures";
  EXPECT_NE(outcomes(8, 250'000, n), a) << "another seed draws others";
  const std::vector<bool> none = outcomes(7, 0, n);
  EXPECT_EQ(std::count(none.begin(), none.end(), true), 0);
  const std::vector<bool> all = outcomes(7, 1'000'000, n);
  EXPECT_EQ(std::count(all.begin(), all.end(), true), 2 * n);
}

/// A lane group that counts the collectives its member calls.
template <class Group>
class counting_group {
 public:
  counting_group(Group& g, unsigned& calls) : g_(&g), calls_(&calls) {}
  unsigned size() const { return g_->size(); }  ///< the group's
  unsigned rank() const { return g_->rank(); }  ///< the group's
  void sync() {  ///< counted
    ++*calls_;
    g_->sync();
  }
  lane_mask ballot(bool pred) {  ///< counted
    ++*calls_;
    return g_->ballot(pred);
  }
  std::uint64_t shfl(std::uint64_t v, unsigned src) {  ///< counted
    ++*calls_;
    return g_->shfl(v, src);
  }
  lane_mask match_any(std::uint64_t key) {  ///< counted
    ++*calls_;
    return g_->match_any(key);
  }

 private:
  Group* g_;
  unsigned* calls_;
};

TEST(StagedFakeBackend, FinishReadsReadsEveryActiveLaneAndCostsOneBallotWhenNothingIsOwed) {
  fake_store s(page_bytes, {16});
  s.fail_tag = cache::make_tag({0, 11});
  const staged_fake_backend backend{&s};
  constexpr std::array<std::uint64_t, 4> pages{3, 0, 9, 11};  // lane 1 records nothing
  std::array<slot_buffer, 4> slots{};
  std::array<status, 4> first{};
  std::array<status, 4> second{};
  std::array<unsigned, 4> calls{};
  std::array<unsigned, 4> calls_when_nothing_owed{};
  std::array<std::uint64_t, 4> reads_after_start{};
  cpu_warp<4>().run([&](auto& lane) {
    const unsigned r = lane.rank();
    counting_group g(lane, calls[r]);
    staged_fake_backend::staged mine{};
    if (r != 1) {
      EXPECT_EQ(backend.start_read(io_of(pages[r], slots[r]), mine), status::ok);
    }
    EXPECT_EQ(mine.active(), r != 1);
    lane.sync();
    reads_after_start[r] = s.reads.load();
    lane.sync();
    first[r] = backend.finish_reads(g, mine);
    counting_group idle(lane, calls_when_nothing_owed[r]);
    second[r] = backend.finish_reads(idle, staged_fake_backend::staged{});
  });
  EXPECT_EQ(reads_after_start, (std::array<std::uint64_t, 4>{})) << "start_read only records";
  EXPECT_EQ(first, (std::array<status, 4>{status::ok, status::ok, status::ok, status::io_error}));
  EXPECT_TRUE(holds_page(slots[0], 3));
  EXPECT_TRUE(holds_page(slots[2], 9));
  EXPECT_EQ(slots[3].bytes, (std::array<std::byte, page_bytes>{})) << "a failed read leaves its slot alone";
  EXPECT_EQ(s.reads.load(), 3U);
  EXPECT_EQ(calls[1], calls[0]) << "every lane calls the same collectives";
  EXPECT_EQ(calls[2], calls[0]);
  EXPECT_EQ(calls[3], calls[0]);
  EXPECT_GT(calls[0], 1U);
  EXPECT_EQ(second, (std::array<status, 4>{}));
  EXPECT_EQ(calls_when_nothing_owed, (std::array<unsigned, 4>{1, 1, 1, 1}));
}

TEST(StagedFakeBackend, AHungLaneTimesOutAtItsDeadlineAndHoldsItsGroupUntilThen) {
  fake_store s(page_bytes, {16});
  s.hang_tag = cache::make_tag({0, 5});
  const staged_fake_backend backend{&s};
  std::array<slot_buffer, 4> slots{};
  std::array<status, 4> got{};
  std::array<std::chrono::steady_clock::duration, 4> took{};
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t deadline = detail::now_ns() + 30'000'000;
  cpu_warp<4>().run([&](auto& lane) {
    const unsigned r = lane.rank();
    staged_fake_backend::staged mine{};
    EXPECT_EQ(backend.start_read(io_of(4 + r, slots[r], deadline), mine), status::ok);
    got[r] = backend.finish_reads(lane, mine);
    took[r] = std::chrono::steady_clock::now() - start;
  });
  EXPECT_EQ(got, (std::array<status, 4>{status::ok, status::timeout, status::ok, status::ok}));
  for (unsigned r = 0; r < 4; ++r) {
    EXPECT_GE(took[r], 30ms) << "the group waits for its hung lane: " << r;
    if (r != 1) {
      EXPECT_TRUE(holds_page(slots[r], 4 + r)) << r;
    }
  }
  EXPECT_EQ(s.hung.load(), 1U);
}

}  // namespace
}  // namespace bam::test
