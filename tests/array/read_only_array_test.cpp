// SPDX-License-Identifier: Apache-2.0
// bam::read_only_array<T>: an array's view without stores. It compiles no write, converts from
// an array (never back), and reads what the array holds through every read the array has.
#include <bam/host/emulator/ram_store.hpp>
#include <bam/page_cache.hpp>

#include "tests/array/array_rig.hpp"
#include "tests/support/cpu_warp.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace bam;
using test::on_threads;
using test::rig;
using test::small_cache;

template <class A>
concept stores = requires(const A& a, typename A::value_type v) { a.store(0, v); };
template <class A>
concept stores_in_group = requires(const A& a, single_lane& g, typename A::value_type v) { a.store(g, 0, v); };
template <class A>
concept adds = requires(const A& a, typename A::value_type v) { a.fetch_add(0, v); };
template <class A>
concept reads = requires(const A& a, single_lane& g, typename A::value_type& v, typename A::value_type* dst) {
  { a[0] } -> std::same_as<typename A::value_type>;
  { a.load(0) } -> std::same_as<typename A::value_type>;
  { a.load(g, 0, v) } -> std::same_as<status>;
  { a.read_range(g, 0, 1, dst) } -> std::same_as<status>;
  a.prefetch(g, 0, 1);
  a.pin_page(g, 0);
};

static_assert(stores<array<std::uint32_t>> && stores_in_group<array<std::uint32_t>> && adds<array<std::uint32_t>>);
static_assert(!stores<read_only_array<std::uint32_t>>, "a read-only view must not store");
static_assert(!stores_in_group<read_only_array<std::uint32_t>>, "a read-only view must not store");
static_assert(!adds<read_only_array<std::uint32_t>>, "a read-only view must not update");
static_assert(reads<read_only_array<std::uint32_t>> && reads<array<std::uint32_t>>);
static_assert(std::is_convertible_v<array<std::uint32_t>, read_only_array<std::uint32_t>>);
static_assert(!std::is_convertible_v<read_only_array<std::uint32_t>, array<std::uint32_t>>);
static_assert(std::is_trivially_copyable_v<read_only_array<double>>);

std::uint32_t value_of(std::uint64_t i) { return std::uint32_t(i * 2654435761u) ^ 0x5a5a5a5au; }

/// What a read-only kernel would be: the view taken by value.
unsigned count_wrong(read_only_array<std::uint32_t> v, std::uint64_t first, std::uint64_t n) {
  unsigned wrong = 0;
  for (std::uint64_t i = first; i < first + n; ++i) wrong += v[i] != value_of(i);
  return wrong;
}

}  // namespace

TEST(ReadOnlyArray, ReadsWhatTheArrayStoredThroughEveryRead) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 14);
  rig r({{ram}}, small_cache(4096, 8));  // 32 KiB of cache over 400 KB of values: reads miss too
  const auto a = r.cache->map<std::uint32_t>({.name = "values", .nsid = 1, .start_lba = 8, .count = 100'000});
  on_threads(4, [&](unsigned t) {
    for (std::uint64_t i = t; i < a.size(); i += 4) a.store(i, value_of(i));
  });
  const read_only_array<std::uint32_t> v = a.read_only();
  EXPECT_EQ(v.size(), a.size());
  EXPECT_EQ(v.range_id(), a.range_id());
  EXPECT_EQ(v.elems_per_page(), 1024u);

  std::atomic<unsigned> wrong{0};
  on_threads(4, [&](unsigned t) {
    for (std::uint64_t i = t; i < v.size(); i += 4) {
      if (v[i] != value_of(i)) ++wrong;
      if (v.load(i) != value_of(i)) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(count_wrong(a, 99'000, 1000), 0u) << "an array converts to the view";

  single_lane g;
  std::uint32_t one = 0;
  ASSERT_EQ(v.load(g, 77'777, one), status::ok);
  EXPECT_EQ(one, value_of(77'777));
  {
    const auto p = v.pin_page(g, 50'000);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p.first(), 50'000u / 1024 * 1024);
    for (std::uint64_t j = 0; j < p.size(); ++j) ASSERT_EQ(p[j], value_of(p.first() + j)) << j;
  }
  const auto last = v.pin_page(g, v.size() - 1);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last.size(), v.size() - last.first()) << "the last page holds only the array's tail";
  EXPECT_NO_THROW(r.cache->check());
}

TEST(ReadOnlyArray, GroupsPrefetchAndReadSpansCooperatively) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 14);
  rig r({{ram}}, small_cache(4096, 16));
  const auto a = r.cache->map<std::uint32_t>({.name = "values", .nsid = 1, .start_lba = 0, .count = 1 << 18});
  for (std::uint64_t i = 0; i < a.size(); ++i) a.store(i, value_of(i));
  r.cache->flush();
  const auto v = a.read_only();
  std::atomic<unsigned> wrong{0}, failed{0};
  on_threads(2, [&](unsigned w) {
    std::vector<std::uint32_t> buf(3000);  // the group's: each lane copies a share
    test::cpu_warp<4>().run([&](auto& lane) {
      for (unsigned k = 0; k < 8; ++k) {
        const std::uint64_t first = (w * 8 + k) * 50'021 % (v.size() - buf.size());
        v.prefetch(lane, first, buf.size());
        if (v.read_range(lane, first, buf.size(), buf.data()) != status::ok) ++failed;
        lane.sync();
        if (lane.rank() == 0)
          for (std::size_t j = 0; j < buf.size(); ++j) wrong += buf[j] != value_of(first + j);
        lane.sync();
      }
    });
  });
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_NO_THROW(r.cache->check());
}

TEST(ReadOnlyArray, AnOutOfRangeReadIsReportedLikeTheArrays) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  rig r({{ram}}, small_cache(4096, 4));
  const auto v = r.cache->map<std::uint32_t>({.name = "small", .nsid = 1, .start_lba = 0, .count = 1000}).read_only();
  single_lane g;
  std::uint32_t out = 7;
  EXPECT_EQ(v.load(g, 1000, out), status::out_of_range);
  EXPECT_EQ(out, 7u) << "a failed read leaves the destination alone";
  try {
    r.cache->check();
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("index 1000"), std::string::npos) << e.what();
  }
}
