// SPDX-License-Identifier: Apache-2.0
// group_topk, the selection every search uses: one host thread (single_lane, the CPU path) and
// a 32-thread cpu_warp (the GPU warp's algorithm, collectives in lockstep) both keep exactly the
// k smallest keys of a stream, sorted, against std::partial_sort.
#include "apps/vector/topk.hpp"

#include "tests/support/cpu_warp.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

using namespace bam::vec;

struct candidate {
  float key;
  std::int64_t id;
};

std::vector<candidate> stream(std::size_t n, std::uint64_t seed, bool ties) {
  std::mt19937_64 rng(seed);
  std::vector<candidate> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = {ties ? float(rng() % 50) : std::uniform_real_distribution<float>(0, 1000)(rng), std::int64_t(i)};
  return v;
}

std::vector<float> best_keys(std::vector<candidate> v, unsigned k) {
  std::vector<float> keys;
  for (const auto& c : v) keys.push_back(c.key);
  std::sort(keys.begin(), keys.end());
  keys.resize(std::min<std::size_t>(k, keys.size()));
  keys.resize(k, no_key());
  return keys;
}

/// Checks the storage holds `want` keys in order and that every id names a candidate with its key.
template <unsigned C>
void expect_result(const topk_storage<C>& s, const std::vector<candidate>& v, const std::vector<float>& want) {
  for (std::size_t j = 0; j < want.size(); ++j) {
    ASSERT_EQ(s.key[j], want[j]) << "rank " << j;
    if (want[j] == no_key()) {
      EXPECT_EQ(s.id[j], -1);
    } else {
      ASSERT_GE(s.id[j], 0);
      EXPECT_EQ(v[std::size_t(s.id[j])].key, s.key[j]);
    }
  }
}

template <unsigned C>
void single_lane_case(std::size_t n, unsigned k, bool ties) {
  const auto v = stream(n, n * 131 + k, ties);
  topk_storage<C> s;
  bam::single_lane lane;
  group_topk<C, bam::single_lane> top(lane, s, k);
  for (const auto& c : v) top.push(c.key, c.id);
  top.finish();
  expect_result(s, v, best_keys(v, k));
  std::vector<std::int64_t> ids(s.id, s.id + k);
  std::sort(ids.begin(), ids.end());
  EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end(), [](auto a, auto b) { return a >= 0 && a == b; }) == ids.end())
      << "an id was kept twice";
}

template <unsigned C>
void warp_case(std::size_t n, unsigned k) {
  const auto v = stream(n, n + k, false);
  topk_storage<C> s;
  bam::test::cpu_warp<32> warp;
  warp.run([&](auto& lane) {
    group_topk<C, std::remove_reference_t<decltype(lane)>> top(lane, s, k);
    for (std::size_t i = 0; i < n; i += 32) {  // lane r offers candidate i + r
      const std::size_t at = i + lane.rank();
      top.push(at < n ? v[at].key : no_key(), at < n ? v[at].id : -1);
    }
    top.finish();
  });
  expect_result(s, v, best_keys(v, k));
}

}  // namespace

TEST(TopK, OneLaneKeepsTheSmallestKeysInOrder) {
  single_lane_case<32>(1000, 10, false);
  single_lane_case<32>(5, 10, false);  // fewer candidates than k
  single_lane_case<32>(64, 32, false);
  single_lane_case<128>(5000, 100, false);
  single_lane_case<256>(3000, 256, false);
  single_lane_case<128>(2000, 1, false);
}

TEST(TopK, OneLaneHandlesTies) { single_lane_case<128>(4000, 100, true); }

TEST(TopK, ACpuWarpRunsTheGpuAlgorithm) {
  warp_case<32>(2000, 10);
  warp_case<128>(3000, 100);
  warp_case<32>(20, 10);
}

TEST(TopK, CapacityIsPickedFromK) {
  EXPECT_EQ(with_capacity(1, [](auto c) { return decltype(c)::value; }), 32u);
  EXPECT_EQ(with_capacity(33, [](auto c) { return decltype(c)::value; }), 128u);
  EXPECT_EQ(with_capacity(256, [](auto c) { return decltype(c)::value; }), 256u);
}
