// SPDX-License-Identifier: Apache-2.0
// The multi-threaded CPU peer (apps/graph/cpu_fast) agrees with the reference algorithms, which
// algorithms_test checks against Boost: BFS depths, component labels and SSSP distances exactly,
// PageRank after 20 iterations within single-precision rounding; and its thread team's
// collectives.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "apps/graph/bfs.hpp"
#include "apps/graph/cc.hpp"
#include "apps/graph/cpu_fast/bfs.hpp"
#include "apps/graph/cpu_fast/cc.hpp"
#include "apps/graph/cpu_fast/pagerank.hpp"
#include "apps/graph/cpu_fast/sssp.hpp"
#include "apps/graph/cpu_fast/thread_team.hpp"
#include "apps/graph/csr_file.hpp"
#include "apps/graph/graph_builder.hpp"
#include "apps/graph/pagerank.hpp"
#include "apps/graph/source_picker.hpp"
#include "apps/graph/sssp.hpp"
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

TEST(ThreadTeam, CollectivesAndLoopsSeeEveryMember) {
  for (const unsigned size : {1u, 3u, 5u}) {
    cpu_fast::thread_team team(size);
    ASSERT_EQ(team.size(), size);
    for (int round = 0; round < 20; ++round) {  // regions and loops reuse the team's counters
      std::vector<std::uint32_t> hits(10'007, 0);
      std::vector<std::uint64_t> sums(size), mins(size), befores(size), totals(size);
      std::vector<double> dsums(size);
      team.run([&](cpu_fast::team_member& m) {
        for (int loop = 0; loop < 3; ++loop) {
          m.for_ranges(hits.size(), 17, [&](std::uint64_t a, std::uint64_t z) {
            for (std::uint64_t i = a; i < z; ++i) ++hits[i];
          });
        }
        sums[m.rank()] = m.sum(std::uint64_t{m.rank()} + 1);
        dsums[m.rank()] = m.sum(0.5);
        mins[m.rank()] = m.min(100 - m.rank());
        const auto [before, total] = m.scan(m.rank() + 1);
        befores[m.rank()] = before;
        totals[m.rank()] = total;
      });
      for (const std::uint32_t h : hits) ASSERT_EQ(h, 3u);
      for (unsigned r = 0; r < size; ++r) {
        EXPECT_EQ(sums[r], std::uint64_t{size} * (size + 1) / 2);
        EXPECT_EQ(dsums[r], 0.5 * size);
        EXPECT_EQ(mins[r], 100u - (size - 1));
        EXPECT_EQ(befores[r], std::uint64_t{r} * (r + 1) / 2);
        EXPECT_EQ(totals[r], std::uint64_t{size} * (size + 1) / 2);
      }
    }
  }
}

class AgreesWithReference : public ::testing::TestWithParam<test::graph_case> {
 protected:
  void SetUp() override {
    const auto source = GetParam().make_source(dir_);
    build_options options;
    options.symmetrize = GetParam().symmetrize;
    options.weights = weight_policy::gap;
    build_csr_file(*source, dir_ / "g.bcsr", options);
    file_ = std::make_unique<csr_file>(csr_file::open(dir_ / "g.bcsr"));
  }

  [[nodiscard]] csr_view<std::uint32_t> g() const { return file_->view<std::uint32_t>(); }

  [[nodiscard]] std::vector<std::uint32_t> sources(int count) const {
    source_picker picker(g());
    std::vector<std::uint32_t> picked;
    for (int i = 0; i < count; ++i) picked.push_back(picker.next());
    return picked;
  }

  test::scratch_dir dir_;
  std::unique_ptr<csr_file> file_;
};

TEST_P(AgreesWithReference, BfsDepths) {
  for (const unsigned threads : {1u, 3u}) {
    cpu_fast::thread_team team(threads);
    for (const std::uint32_t s : sources(4)) {
      EXPECT_EQ(cpu_fast::bfs(g(), s, team), bfs_depths(g(), s, 2)) << "source " << s;
      // Bottom-up from the first step on (unexplored edges / alpha rounds to 0), and top-down
      // until a frontier's edges exceed all unexplored ones: the switch must not matter.
      EXPECT_EQ(cpu_fast::bfs(g(), s, team, {.alpha = ~0ull >> 1, .beta = 18}),
                bfs_depths(g(), s, 2));
      EXPECT_EQ(cpu_fast::bfs(g(), s, team, {.alpha = 1, .beta = 1}), bfs_depths(g(), s, 2));
    }
  }
}

TEST_P(AgreesWithReference, ComponentLabels) {
  const auto expected = connected_components(g(), 2);
  for (const unsigned threads : {1u, 3u}) {
    cpu_fast::thread_team team(threads);
    EXPECT_EQ(cpu_fast::connected_components(g(), team), expected);
    EXPECT_EQ(cpu_fast::connected_components(g(), team, {.neighbor_rounds = 0, .samples = 1}),
              expected);
  }
}

TEST_P(AgreesWithReference, SsspDistances) {
  for (const unsigned threads : {1u, 3u}) {
    cpu_fast::thread_team team(threads);
    for (const std::uint32_t s : sources(3)) {
      const auto expected = sssp_distances(g(), s, 2);
      for (const std::uint64_t delta : {1ull, 2ull, 64ull, 1000ull}) {
        EXPECT_EQ(cpu_fast::sssp(g(), s, team, {.delta = delta}), expected)
            << "source " << s << " delta " << delta;
      }
    }
  }
}

TEST_P(AgreesWithReference, PageRankTwentyIterations) {
  cpu_fast::thread_team team(3);
  const pagerank_options twenty{.tolerance = 0, .max_iterations = 20};
  if (!g().symmetric) {
    EXPECT_THROW((void)cpu_fast::pagerank(g(), team, twenty), graph_error);
    return;
  }
  const pagerank_result expected = pagerank(g(), twenty, 2);
  const cpu_fast::pagerank_scores ours = cpu_fast::pagerank(g(), team, twenty);
  EXPECT_EQ(ours.iterations, 20);
  ASSERT_EQ(ours.scores.size(), expected.scores.size());
  // Scores and contributions are stored as floats (2^-24 relative each), sums taken in double:
  // over 20 contracting iterations the error stays within a few units in the last place.
  for (std::size_t v = 0; v < ours.scores.size(); ++v) {
    ASSERT_NEAR(ours.scores[v], expected.scores[v], 1e-5 * expected.scores[v]) << "vertex " << v;
  }
  // Float scores round each of the n terms of the L1 change by 2^-24 of a score: about 6e-8 in all.
  EXPECT_NEAR(ours.change, expected.change, 1e-3 * expected.change + 1e-7);
  // GAP's default tolerance stops both at the same iteration.
  EXPECT_EQ(cpu_fast::pagerank(g(), team).iterations, pagerank(g(), {}, 2).iterations);
}

INSTANTIATE_TEST_SUITE_P(Graphs, AgreesWithReference, test::algorithm_graphs(),
                         test::graph_case_name);

TEST(CpuFast, RefusesBadArguments) {
  test::scratch_dir dir;
  test::build_gap(gap_kind::urand, 6, 2, dir / "u.bcsr");
  const csr_file file = csr_file::open(dir / "u.bcsr");
  cpu_fast::thread_team team(2);
  EXPECT_THROW((void)cpu_fast::bfs(file.view<std::uint32_t>(), 64, team), graph_error);
  EXPECT_THROW((void)cpu_fast::sssp(file.view<std::uint32_t>(), 0, team), graph_error);
  test::build_gap(gap_kind::urand, 6, 2, dir / "w.bcsr", true);
  const csr_file weighted = csr_file::open(dir / "w.bcsr");
  EXPECT_THROW((void)cpu_fast::sssp(weighted.view<std::uint32_t>(), 0, team, {.delta = 0}),
               graph_error);
}

}  // namespace
}  // namespace bam::graph
