// SPDX-License-Identifier: Apache-2.0
// The graph kernels' steps (apps/graph/gpu) on CPU threads, reading the graph through
// bam::array over the emulated controller with a cache of 1/8 of the edge data, and from plain
// memory: BFS depths, component labels and SSSP distances equal the CPU reference (itself checked
// against the Boost Graph Library in algorithms_test.cpp); PageRank scores within 1e-9 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "apps/graph/bfs.hpp"
#include "apps/graph/cc.hpp"
#include "apps/graph/csr_file.hpp"
#include "apps/graph/gpu/graph_storage.hpp"
#include "apps/graph/gpu/runners.hpp"
#include "apps/graph/graph_builder.hpp"
#include "apps/graph/pagerank.hpp"
#include "apps/graph/source_picker.hpp"
#include "apps/graph/sssp.hpp"
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

namespace gk = bam::graph::gpu;

/// PageRank agreement: |ours - reference| <= this * reference, per vertex (the only difference
/// is the order of the floating-point sums).
constexpr double pagerank_relative_tolerance = 1e-9;
constexpr unsigned threads = 3;

bam::apps::storage_options small_cache(const csr_file& f) {
  bam::apps::storage_options o;
  o.gpu = false;
  const std::uint64_t edge_bytes = f.header().num_edges * (f.header().id_bytes + f.header().weight_bytes);
  o.page_bytes = 2048;  // small pages: 1/8 of the edges is above apps::min_cache_pages pages
  o.cache_bytes = edge_bytes / 8;
  o.queues = 4;
  o.depth = 64;
  o.workers = 1;
  o.emulator.idle_spin_ns = 5'000;
  return o;
}

gk::run_options cpu_run() {
  gk::run_options o;
  o.where = gk::engine::cpu;
  o.cpu_threads = threads;
  return o;
}

gk::sssp_options sssp_run(std::uint64_t delta = gk::sssp_options{}.delta) {
  gk::sssp_options o;
  static_cast<gk::run_options&>(o) = cpu_run();
  o.delta = delta;
  return o;
}

class KernelsMatchReference : public ::testing::TestWithParam<test::graph_case> {
 protected:
  void SetUp() override {
    auto source = GetParam().make_source(dir_);
    build_options options;
    options.symmetrize = GetParam().symmetrize;
    options.weights = weight_policy::gap;
    build_csr_file(*source, dir_ / "g.bcsr", options);
    file_ = std::make_unique<csr_file>(csr_file::open(dir_ / "g.bcsr"));
    cached_ = std::make_unique<gk::cached_graph>(*file_, small_cache(*file_));
    resident_ = std::make_unique<gk::resident_graph>(*file_, gk::placement::host);
  }
  [[nodiscard]] csr_view<std::uint32_t> ref() const { return file_->view<std::uint32_t>(); }
  [[nodiscard]] std::vector<std::uint32_t> sources(int count) const {
    source_picker picker(ref());
    std::vector<std::uint32_t> s;
    for (int i = 0; i < count; ++i) s.push_back(picker.next());
    return s;
  }
  /// The cache was far smaller than the edges and every access succeeded.
  void expect_cache_worked() {
    EXPECT_NO_THROW(cached_->cache().check());
    const auto s = cached_->cache().total_stats();
    EXPECT_GT(s.counts.evictions, 0u) << "the cache holds 1/8 of the edge data";
    EXPECT_EQ(s.counts.failures, 0u);
  }

  test::scratch_dir dir_;
  std::unique_ptr<csr_file> file_;
  std::unique_ptr<gk::cached_graph> cached_;
  std::unique_ptr<gk::resident_graph> resident_;
};

TEST_P(KernelsMatchReference, BfsDepthsAreExact) {
  gk::bfs_options o;
  static_cast<gk::run_options&>(o) = cpu_run();
  std::uint32_t bottom_up_steps = 0;
  o.on_iteration = [&](const gk::iteration_info& i) { bottom_up_steps += i.phase == "bottom-up"; };
  for (const std::uint32_t s : sources(2)) {
    const auto expected = bfs_depths(ref(), s, threads);
    const auto cached = gk::run_bfs(cached_->view<std::uint32_t>(), s, o);
    EXPECT_EQ(cached.depth, expected) << "cached, source " << s;
    EXPECT_EQ(gk::run_bfs(resident_->view<std::uint32_t>(), s, o).depth, expected) << "memory, source " << s;
    EXPECT_GT(cached.edges_examined, 0u);
  }
  if (ref().symmetric) {
    EXPECT_GT(bottom_up_steps, 0u) << "direction-optimizing: some levels go bottom-up";
  }
  expect_cache_worked();
}

TEST_P(KernelsMatchReference, ComponentsAreTheSmallestVertexOfEach) {
  const auto expected = connected_components(ref(), threads);
  EXPECT_EQ(gk::run_cc(cached_->view<std::uint32_t>(), cpu_run()).component, expected);
  EXPECT_EQ(gk::run_cc(resident_->view<std::uint32_t>(), cpu_run()).component, expected);
  expect_cache_worked();
}

TEST_P(KernelsMatchReference, SsspDistancesAreExact) {
  for (const std::uint32_t s : sources(1)) {
    const auto expected = sssp_distances(ref(), s, threads);
    EXPECT_EQ(gk::run_sssp(cached_->view<std::uint32_t>(), s, sssp_run()).distance, expected) << "source " << s;
    EXPECT_EQ(gk::run_sssp(resident_->view<std::uint32_t>(), s, sssp_run()).distance, expected) << "source " << s;
  }
  expect_cache_worked();
}

TEST_P(KernelsMatchReference, SsspBucketWidthChangesTheWorkNotTheDistances) {
  const std::uint32_t s = sources(1).front();
  const auto expected = sssp_distances(ref(), s, threads);
  std::uint64_t reached_edges = 0;
  for (std::uint64_t v = 0; v < expected.size(); ++v) {
    if (expected[v] != sssp_unreached) reached_edges += ref().degree(v);
  }
  // Delta 1 with weights >= 1 (GAP's 1..255): a bucket is one distance and nothing relaxed in it
  // lands in it again, so every reached list is relaxed exactly once, in one round per bucket,
  // and every bucket after the first came from the far list.
  const auto one = gk::run_sssp(resident_->view<std::uint32_t>(), s, sssp_run(1));
  EXPECT_EQ(one.distance, expected);
  EXPECT_EQ(one.edges_examined, reached_edges);
  EXPECT_EQ(one.rounds, one.buckets);
  EXPECT_GT(one.buckets, 10u);
  // Narrow buckets, through the cache: some vertices reach their distance from a vertex of their
  // own bucket (weights below 7), which takes a second round in that bucket.
  const auto narrow = gk::run_sssp(cached_->view<std::uint32_t>(), s, sssp_run(7));
  EXPECT_EQ(narrow.distance, expected);
  EXPECT_GT(narrow.buckets, 1u);
  EXPECT_GT(narrow.rounds, narrow.buckets);
  EXPECT_GE(narrow.edges_examined, reached_edges);
  expect_cache_worked();
  // One bucket wider than every distance: frontier Bellman-Ford, no far list.
  const auto whole = gk::run_sssp(resident_->view<std::uint32_t>(), s, sssp_run(sssp_unreached));
  EXPECT_EQ(whole.distance, expected);
  EXPECT_EQ(whole.buckets, 1u);
  EXPECT_GE(whole.edges_examined, reached_edges);
}

TEST_P(KernelsMatchReference, PageRankScoresAgreeWithinTolerance) {
  gk::pagerank_options o;
  static_cast<gk::run_options&>(o) = cpu_run();
  if (!ref().symmetric) {
    EXPECT_THROW((void)gk::run_pagerank(cached_->view<std::uint32_t>(), o), graph_error);
    return;
  }
  pagerank_options ro;
  ro.tolerance = 0;  // GAP's 20 iterations, no early stop, as the kernels run by default
  const auto expected = pagerank(ref(), ro, threads);
  for (const auto& run : {gk::run_pagerank(cached_->view<std::uint32_t>(), o),
                          gk::run_pagerank(resident_->view<std::uint32_t>(), o)}) {
    ASSERT_EQ(run.iterations, 20);
    ASSERT_EQ(run.scores.size(), expected.scores.size());
    for (std::size_t v = 0; v < run.scores.size(); ++v) {
      ASSERT_NEAR(run.scores[v], expected.scores[v], pagerank_relative_tolerance * expected.scores[v]) << v;
    }
    EXPECT_NEAR(run.change, expected.change, 1e-9);
  }
  expect_cache_worked();
}

INSTANTIATE_TEST_SUITE_P(Graphs, KernelsMatchReference, test::algorithm_graphs(), test::graph_case_name);

TEST(GraphKernels, FileBackedNamespaceGivesTheSameDepths) {
  test::scratch_dir dir;
  test::build_gap(gap_kind::kron, 11, 16, dir / "k.bcsr");
  const csr_file f = csr_file::open(dir / "k.bcsr");
  auto o = small_cache(f);
  o.backend = bam::apps::storage_backend::file;
  gk::cached_graph g(f, o);
  gk::bfs_options bo;
  static_cast<gk::run_options&>(bo) = cpu_run();
  const std::uint32_t s = source_picker(f.view<std::uint32_t>()).next();
  EXPECT_EQ(gk::run_bfs(g.view<std::uint32_t>(), s, bo).depth, bfs_depths(f.view<std::uint32_t>(), s));
  EXPECT_NO_THROW(g.cache().check());
}

TEST(GraphKernels, BadArgumentsAreRefusedWithClearErrors) {
  test::scratch_dir dir;
  test::build_gap(gap_kind::urand, 8, 4, dir / "u.bcsr");  // unweighted
  const csr_file f = csr_file::open(dir / "u.bcsr");
  gk::resident_graph g(f, gk::placement::host);
  const auto view = g.view<std::uint32_t>();
  gk::bfs_options bo;
  static_cast<gk::run_options&>(bo) = cpu_run();
  try {
    (void)gk::run_bfs(view, 256, bo);
    FAIL() << "source 256 of 256 vertices was accepted";
  } catch (const graph_error& e) {
    EXPECT_STREQ(e.what(), "BFS source 256 is not one of the 256 vertices");
  }
  try {
    (void)gk::run_sssp(view, 0, sssp_run());
    FAIL() << "SSSP ran on an unweighted graph";
  } catch (const graph_error& e) {
    EXPECT_STREQ(e.what(), "SSSP needs a weighted graph");
  }
  test::build_gap(gap_kind::urand, 8, 4, dir / "w.bcsr", true);
  const csr_file wf = csr_file::open(dir / "w.bcsr");
  gk::resident_graph weighted(wf, gk::placement::host);
  try {
    (void)gk::run_sssp(weighted.view<std::uint32_t>(), 0, sssp_run(0));
    FAIL() << "SSSP ran with delta 0";
  } catch (const graph_error& e) {
    EXPECT_STREQ(e.what(), "SSSP delta (the bucket width) must be at least 1, not 0");
  }
  EXPECT_THROW((void)g.view<std::uint64_t>(), graph_error) << "8-byte view of a 4-byte file";
#if !BAM_WITH_CUDA_RUNTIME
  gk::run_options gpu;
  gpu.where = gk::engine::gpu;
  EXPECT_THROW((void)gk::run_cc(view, gpu), bam::invalid_argument);
#endif
}

}  // namespace
}  // namespace bam::graph
