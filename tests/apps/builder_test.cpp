// SPDX-License-Identifier: Apache-2.0
// The external-memory builder: GAP's cleaning rules, any bucket split gives the same file, and a
// failed build leaves nothing behind.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>

#include "apps/graph/csr_file.hpp"
#include "apps/graph/gap_generator.hpp"
#include "apps/graph/gap_random.hpp"
#include "apps/graph/graph_builder.hpp"
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

TEST(Builder, CleansLikeGapAndKeepsDirection) {
  test::scratch_dir dir;
  const test::vector_source source(
      {{0, 1, 5}, {0, 1, 2}, {1, 0, 9}, {2, 2, 1}, {3, 0, 4}, {0, 3, 6}}, true, 2);
  for (const bool symmetrize : {false, true}) {
    build_options options;
    options.symmetrize = symmetrize;
    const auto path = dir / (symmetrize ? "s.bcsr" : "d.bcsr");
    const build_result r = build_csr_file(source, path, options);
    EXPECT_EQ(r.input_edges, 6u);
    const csr_file file = csr_file::open(path);
    EXPECT_EQ(file.header().symmetric(), symmetrize);
    EXPECT_EQ(test::model_of(file.view<std::uint32_t>()),
              test::model_of(source.edges(), symmetrize));
  }
  const test::adjacency_model directed{{0, {{1, 2}, {3, 6}}}, {1, {{0, 9}}}, {3, {{0, 4}}}};
  EXPECT_EQ(test::model_of(csr_file::open(dir / "d.bcsr").view<std::uint32_t>()), directed);
}

TEST(Builder, AnyBucketSplitWritesTheSameFile) {
  test::scratch_dir dir;
  const gap_generator gen(gap_kind::kron, 12, 8);
  build_options options;
  options.symmetrize = true;
  options.weights = weight_policy::gap;
  options.threads = 3;
  const build_result whole = build_csr_file(gen, dir / "whole.bcsr", options);
  EXPECT_EQ(whole.buckets, 1u);
  options.memory_budget_bytes = 32 << 10;  // forces many buckets
  options.threads = 1;
  const build_result split = build_csr_file(gen, dir / "split.bcsr", options);
  EXPECT_GT(split.buckets, 4u);
  EXPECT_EQ(test::read_bytes(dir / "whole.bcsr"), test::read_bytes(dir / "split.bcsr"));
}

TEST(Builder, ForcedWideIdsHoldTheSameGraph) {
  test::scratch_dir dir;
  const gap_generator gen(gap_kind::urand, 9, 4);
  build_options options;
  options.symmetrize = true;
  build_csr_file(gen, dir / "narrow.bcsr", options);
  options.id_bytes = 8;
  build_csr_file(gen, dir / "wide.bcsr", options);
  const csr_file narrow = csr_file::open(dir / "narrow.bcsr");
  const csr_file wide = csr_file::open(dir / "wide.bcsr");
  EXPECT_EQ(wide.header().id_bytes, 8u);
  EXPECT_EQ(test::model_of(narrow.view<std::uint32_t>()),
            test::model_of(wide.view<std::uint64_t>()));
}

TEST(Builder, GapWeightsFollowEdgeOrderForAnyChunking) {
  test::scratch_dir dir;
  std::vector<raw_edge> edges;
  for (std::uint64_t i = 0; i < gap::block_edges + 100; ++i)
    edges.push_back({i % 1000, (i * 7 + 1) % 1000, 0});
  const test::vector_source source(edges, false, 12345);  // chunks straddle GAP's blocks
  build_options options;
  options.weights = weight_policy::gap;
  build_csr_file(source, dir / "w.bcsr", options);
  gap::weight_sequence weights(0);
  for (raw_edge& e : edges) e.w = weights.next();
  EXPECT_EQ(test::model_of(csr_file::open(dir / "w.bcsr").view<std::uint32_t>()),
            test::model_of(edges, false));
}

TEST(Builder, EmptyInputAndProgress) {
  test::scratch_dir dir;
  const test::vector_source source({}, false);
  std::set<std::string> phases;
  std::mutex mutex;
  build_options options;
  options.progress = [&](const build_progress& p) {
    std::lock_guard lock(mutex);
    phases.insert(std::string(p.phase));
    EXPECT_LE(p.done, p.total);
  };
  const build_result r = build_csr_file(source, dir / "e.bcsr", options);
  EXPECT_EQ(r.header.num_vertices, 0u);
  EXPECT_EQ(r.header.num_edges, 0u);
  EXPECT_TRUE(phases.count("read") == 1 && phases.count("finish") == 1);
}

/// A source whose second reading differs from its first.
class unstable_source final : public edge_source {
 public:
  [[nodiscard]] std::string name() const override { return "unstable"; }
  [[nodiscard]] std::uint64_t num_chunks() const override { return 1; }
  [[nodiscard]] bool has_weights() const override { return false; }
  void read_chunk(std::uint64_t, std::vector<raw_edge>& out) const override {
    out.assign(1 + reads_++, raw_edge{0, 1, 0});
  }

 private:
  mutable std::uint64_t reads_ = 0;
};

TEST(Builder, FailureLeavesNoOutput) {
  test::scratch_dir dir;
  test::write_text(dir / "old.bcsr", "previous contents");
  EXPECT_THROW(build_csr_file(unstable_source(), dir / "old.bcsr", {}), graph_error);
  EXPECT_EQ(test::read_bytes(dir / "old.bcsr").size(), 17u);
  EXPECT_FALSE(std::filesystem::exists(dir / "old.bcsr.partial"));
  EXPECT_FALSE(std::filesystem::exists(dir / "old.bcsr.weights"));
}

}  // namespace
}  // namespace bam::graph
