// SPDX-License-Identifier: Apache-2.0
// The GAP generator reproduces GAP's draws, and the graphs built from it have GAP's counts.
#include "apps/graph/gap_generator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "apps/graph/csr_file.hpp"
#include "apps/graph/gap_random.hpp"
#include "apps/graph/graph_builder.hpp"
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

/// An engine covering all of uint32 that returns scripted values.
struct scripted_engine {
  using result_type = std::uint32_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0xFFFFFFFFu; }
  result_type operator()() { return values.at(next++); }
  std::vector<result_type> values;
  std::size_t next = 0;
};

TEST(GapRandom, UniDistRejectsOnlyAboveGapsCutoff) {
  // 255 values: (2^32 - 1) % 255 == 0, so GAP's cutoff is 2^32 - 1 and only that value is redrawn.
  scripted_engine e{{0xFFFFFFFFu, 0xFFFFFFFEu, 7u}};
  const gap::uni_dist<std::uint32_t> weights(254);
  EXPECT_EQ(weights(e), 0xFFFFFFFEu % 255);
  EXPECT_EQ(e.next, 2u);
  EXPECT_EQ(weights(e), 7u);

  // A power-of-two range has no cutoff: the low bits of every draw.
  scripted_engine p{{0xFFFFFFFFu, 0x12345678u}};
  const gap::uni_dist<std::uint32_t> vertices((1u << 20) - 1);
  EXPECT_EQ(vertices(p), 0xFFFFFu);
  EXPECT_EQ(vertices(p), 0x45678u);

  // Otherwise values at or above max - (max % range) are redrawn: range 3 -> cutoff 2^32 - 1 - 0.
  scripted_engine t{{0xFFFFFFFFu, 0xFFFFFFFDu}};
  EXPECT_EQ(gap::uni_dist<std::uint32_t>(2)(t), 0xFFFFFFFDu % 3);
  // range 10: max % 10 = 5, cutoff = 2^32 - 6.
  scripted_engine u{{0xFFFFFFFAu, 0xFFFFFFF9u}};
  EXPECT_EQ(gap::uni_dist<std::uint32_t>(9)(u), 0xFFFFFFF9u % 10);
  EXPECT_EQ(u.next, 2u);
}

TEST(GapRandom, WeightSequenceReseedsPerBlockAndCanStartAnywhere) {
  std::mt19937 block0(static_cast<std::uint32_t>(gap::seed));
  std::mt19937 block1(static_cast<std::uint32_t>(gap::seed + 1));
  const gap::uni_dist<std::uint32_t> dist(254);
  std::vector<std::uint32_t> expected;
  for (std::uint64_t e = 0; e < gap::block_edges; ++e) expected.push_back(dist(block0) + 1);
  for (int e = 0; e < 10; ++e) expected.push_back(dist(block1) + 1);

  gap::weight_sequence from_start(0);
  for (const std::uint32_t w : expected) ASSERT_EQ(from_start.next(), w);
  gap::weight_sequence mid_block(gap::block_edges - 3);
  for (std::size_t i = gap::block_edges - 3; i < expected.size(); ++i) {
    ASSERT_EQ(mid_block.next(), expected[i]);
  }
  EXPECT_TRUE(std::all_of(expected.begin(), expected.end(),
                          [](std::uint32_t w) { return w >= 1 && w <= 255; }));
}

TEST(GapGenerator, UniformEdgesAreGapsDraws) {
  const gap_generator gen(gap_kind::urand, 10, 4);
  EXPECT_EQ(gen.num_edges(), 4096u);
  EXPECT_EQ(gen.num_chunks(), 1u);
  std::vector<raw_edge> edges;
  gen.read_chunk(0, edges);
  ASSERT_EQ(edges.size(), 4096u);
  std::mt19937 engine(static_cast<std::uint32_t>(gap::seed));
  for (const raw_edge& e : edges) {
    ASSERT_EQ(e.u, engine() % 1024);
    ASSERT_EQ(e.v, engine() % 1024);
  }
}

TEST(GapGenerator, KroneckerEdgesAreGapsDrawsPermuted) {
  const int scale = 12;
  const gap_generator gen(gap_kind::kron, scale, 16);
  EXPECT_EQ(gen.num_chunks(), 1u);
  std::vector<std::uint32_t> permutation(1u << scale);
  std::iota(permutation.begin(), permutation.end(), 0u);
  std::mt19937 shuffler(static_cast<std::uint32_t>(gap::seed));
  std::shuffle(permutation.begin(), permutation.end(), shuffler);

  std::vector<raw_edge> edges;
  gen.read_chunk(0, edges);
  std::mt19937 engine(static_cast<std::uint32_t>(gap::seed));
  for (const raw_edge& e : edges) {
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
    for (int d = 0; d < scale; ++d) {
      // Quadrants a (0,0), b (0,1), c (1,0), d (1,1) by the raw draw, with GAP's strict
      // comparisons at the a/b and c/d borders.
      const std::uint32_t r = static_cast<std::uint32_t>(engine());
      const bool top = r < gap::rmat_a + gap::rmat_b;
      src = src << 1 | (top ? 0u : 1u);
      dst = dst << 1 |
            ((top ? r > gap::rmat_a : r > gap::rmat_a + gap::rmat_b + gap::rmat_c) ? 1u : 0u);
    }
    ASSERT_EQ(e.u, permutation[src]);
    ASSERT_EQ(e.v, permutation[dst]);
  }
}

TEST(GapGenerator, ChunksReplayIdentically) {
  const gap_generator gen(gap_kind::kron, 15, 16);
  ASSERT_EQ(gen.num_chunks(), 2u);
  std::vector<raw_edge> a;
  std::vector<raw_edge> b;
  gen.read_chunk(1, a);
  gen.read_chunk(0, b);
  gen.read_chunk(1, b);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), [](const raw_edge& x, const raw_edge& y) {
    return x.u == y.u && x.v == y.v;
  }));
}

TEST(GapGenerator, RefusesScalesGapCannotMake) {
  EXPECT_THROW(gap_generator(gap_kind::kron, 31, 16), graph_error);
  EXPECT_THROW(gap_generator(gap_kind::urand, 0, 16), graph_error);
  EXPECT_THROW(gap_generator(gap_kind::urand, 10, 0), graph_error);
}

// Counts from an independent in-memory implementation of GAP's generator and builder (edge
// keys sorted and deduplicated); the -g20/-u20 figures are checked in gap20_test.cpp.
TEST(GapGenerator, Scale16CountsMatchGap) {
  test::scratch_dir dir;
  const csr_header kron = test::build_gap(gap_kind::kron, 16, 16, dir / "k.bcsr");
  EXPECT_EQ(kron.num_edges / 2, 909646u);
  EXPECT_TRUE(kron.symmetric());
  const csr_header urand = test::build_gap(gap_kind::urand, 16, 16, dir / "u.bcsr");
  EXPECT_EQ(urand.num_vertices, 65536u);
  EXPECT_EQ(urand.num_edges / 2, 1048276u);
  const csr_header small = test::build_gap(gap_kind::kron, 12, 16, dir / "s.bcsr");
  EXPECT_EQ(small.num_edges / 2, 48386u);
}

TEST(GapGenerator, WeightedGraphKeepsLightestDuplicateOnBothSides) {
  test::scratch_dir dir;
  const gap_generator gen(gap_kind::kron, 11, 16);
  test::build_gap(gap_kind::kron, 11, 16, dir / "w.bcsr", true);
  const csr_file file = csr_file::open(dir / "w.bcsr");
  ASSERT_TRUE(file.header().weighted());

  std::vector<raw_edge> edges = test::all_edges(gen);
  gap::weight_sequence weights(0);
  for (raw_edge& e : edges) e.w = weights.next();
  const test::adjacency_model expected = test::model_of(edges, true);
  EXPECT_EQ(test::model_of(file.view<std::uint32_t>()), expected);
  std::uint64_t max_id = 0;
  for (const raw_edge& e : edges) max_id = std::max({max_id, e.u, e.v});
  EXPECT_EQ(file.header().num_vertices, max_id + 1);  // GAP: largest id + 1
}

}  // namespace
}  // namespace bam::graph
