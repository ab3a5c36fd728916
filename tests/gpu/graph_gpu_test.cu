// SPDX-License-Identifier: Apache-2.0
// The graph kernels (apps/graph/gpu) on the GPU over every storage: through bam's page cache
// (emulated controller, cache = 1/8 of the edge data), VRAM, pinned host memory read zero-copy,
// and managed memory, on GAP's kron graph at scale 18: BFS depths, component labels and SSSP
// distances equal the CPU reference, PageRank scores within 1e-9 relative. Skips without a GPU.
#include "apps/graph/bfs.hpp"
#include "apps/graph/cc.hpp"
#include "apps/graph/csr_file.hpp"
#include "apps/graph/gap_generator.hpp"
#include "apps/graph/gpu/graph_storage.hpp"
#include "apps/graph/gpu/runners.hpp"
#include "apps/graph/graph_builder.hpp"
#include "apps/graph/pagerank.hpp"
#include "apps/graph/source_picker.hpp"
#include "apps/graph/sssp.hpp"

#include <bam/host/memory/cuda_memory.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

namespace {

namespace gk = bam::graph::gpu;
using namespace bam::graph;

constexpr int scale = 18;
constexpr double pagerank_relative_tolerance = 1e-9;

/// The graph file and the CPU reference results, made once for every test.
struct reference {
  std::filesystem::path dir;
  std::unique_ptr<csr_file> file;
  std::vector<std::uint32_t> sources;
  std::vector<std::vector<std::uint32_t>> depth;  ///< per source
  std::vector<std::uint64_t> distance;            ///< from sources[0]
  std::vector<std::uint32_t> component;
  pagerank_result pagerank;

  reference() {
    dir = std::filesystem::temp_directory_path() / ("bam_graph_gpu_test_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir);
    build_options o;
    o.symmetrize = true;
    o.weights = weight_policy::gap;
    build_csr_file(gap_generator(gap_kind::kron, scale, 16), dir / "kron.bcsr", o);
    file = std::make_unique<csr_file>(csr_file::open(dir / "kron.bcsr"));
    const auto g = file->view<std::uint32_t>();
    source_picker picker(g);
    for (int i = 0; i < 2; ++i) sources.push_back(picker.next());
    for (const auto s : sources) depth.push_back(bfs_depths(g, s));
    distance = sssp_distances(g, sources[0]);
    component = connected_components(g);
    pagerank_options po;
    po.tolerance = 0;  // 20 iterations, as the kernels run by default
    pagerank = bam::graph::pagerank(g, po);
  }
  ~reference() {
    file.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

class GraphGpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (bam::host::cuda_device_present()) ref_ = new reference();
  }
  static void TearDownTestSuite() {
    delete ref_;
    ref_ = nullptr;
  }
  void SetUp() override {
    if (!bam::host::cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }

  /// Runs the four algorithms over `g` on the GPU and compares with the reference.
  template <class View>
  static void expect_all_match(const View& g) {
    gk::bfs_options bo;
    std::uint32_t bottom_up = 0;
    bo.on_iteration = [&](const gk::iteration_info& i) { bottom_up += i.phase == "bottom-up"; };
    for (std::size_t k = 0; k < ref_->sources.size(); ++k) {
      const auto r = gk::run_bfs(g, ref_->sources[k], bo);
      EXPECT_EQ(r.depth, ref_->depth[k]) << "BFS from " << ref_->sources[k];
      std::printf("  BFS from %u: %.2f ms, %u levels, %llu edges examined\n", ref_->sources[k], r.seconds * 1e3,
                  r.levels, (unsigned long long)r.edges_examined);
    }
    EXPECT_GT(bottom_up, 0u) << "direction-optimizing: kron levels go bottom-up";

    const auto cc = gk::run_cc(g, {});
    EXPECT_EQ(cc.component, ref_->component);
    std::printf("  CC: %.2f ms, %llu edges examined of %llu\n", cc.seconds * 1e3,
                (unsigned long long)cc.edges_examined, (unsigned long long)g.num_edges);

    const auto pr = gk::run_pagerank(g, {});
    ASSERT_EQ(pr.iterations, 20);
    ASSERT_EQ(pr.scores.size(), ref_->pagerank.scores.size());
    std::uint64_t off = 0;
    for (std::size_t v = 0; v < pr.scores.size(); ++v) {
      const double want = ref_->pagerank.scores[v];
      off += std::fabs(pr.scores[v] - want) > pagerank_relative_tolerance * want;
    }
    EXPECT_EQ(off, 0u) << "PageRank scores beyond the tolerance";
    std::printf("  PageRank: %.2f ms for 20 iterations\n", pr.seconds * 1e3);

    const auto sp = gk::run_sssp(g, ref_->sources[0], {});
    EXPECT_EQ(sp.distance, ref_->distance);
    std::printf("  SSSP: %.2f ms, %u rounds in %u buckets, %llu edges examined\n", sp.seconds * 1e3, sp.rounds,
                sp.buckets, (unsigned long long)sp.edges_examined);
  }

  static void resident(gk::placement where) {
    gk::resident_graph g(*ref_->file, where);
    std::printf("%s:\n", gk::to_string(where));
    expect_all_match(g.view<std::uint32_t>());
  }

  static reference* ref_;
};

reference* GraphGpu::ref_ = nullptr;

}  // namespace

TEST_F(GraphGpu, ThroughThePageCacheAtAnEighthOfTheEdges) {
  bam::apps::storage_options o;
  o.gpu = true;
  const std::uint64_t edge_bytes = ref_->file->header().num_edges * 8;  // ids + weights
  o.cache_bytes = edge_bytes / 8 / 4096 * 4096;
  o.queues = 32;
  o.depth = 256;
  gk::cached_graph g(*ref_->file, o);
  std::printf("bam (cache %.1f MiB of %.1f MiB edge data):\n", double(g.cache_bytes()) / (1 << 20),
              double(edge_bytes) / (1 << 20));
  expect_all_match(g.view<std::uint32_t>());
  EXPECT_NO_THROW(g.cache().check());
  const auto s = g.cache().total_stats();
  EXPECT_GT(s.counts.evictions, 0u);
  EXPECT_EQ(s.counts.failures, 0u);
  std::printf("%s", g.cache().stats_table().c_str());
}

TEST_F(GraphGpu, FromVram) { resident(gk::placement::vram); }
TEST_F(GraphGpu, FromPinnedHostMemoryZeroCopy) { resident(gk::placement::pinned); }
TEST_F(GraphGpu, FromManagedMemory) { resident(gk::placement::managed); }
