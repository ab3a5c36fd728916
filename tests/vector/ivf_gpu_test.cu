// SPDX-License-Identifier: Apache-2.0
// The GPU vector search against the CPU reference: k-means steps and assignment agree, IVF
// search from VRAM matches the CPU scan, the same kernels through bam::array (GPU-driven queues,
// emulated controller, a cache of 10% of the vectors) return exactly what they return from VRAM,
// for f32/f16/u8 storage; exact search matches the CPU. Skips itself without a GPU.
#include "apps/vector/bam_store.hpp"
#include "apps/vector/cpu_search.hpp"
#include "apps/vector/generator.hpp"
#include "apps/vector/gpu_ivf_scan.cuh"
#include "apps/vector/gpu_search.hpp"
#include "apps/vector/ivf_build.hpp"
#include "apps/vector/recall.hpp"
#include "apps/vector/rows_view.hpp"

#include <bam/host/memory/cuda_memory.hpp>
#include "tests/vector/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace {

using namespace bam::vec;

class VectorGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!bam::host::cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
  /// Builds an index of a clustered collection with the GPU engines.
  void build(scalar_type storage, metric m, std::uint64_t rows = 30000, std::uint32_t lists = 128,
             std::uint32_t dim = 48, std::uint64_t queries = 1000) {
    base_ = read_all(clustered_source({rows, dim, 300, 5, 0.25f, 1.5f}));
    queries_ = read_all(clustered_source({queries, dim, 300, 5, 0.25f, 1.5f}, 1));
    if (storage == scalar_type::u8)
      for (auto* mat : {&base_, &queries_})
        for (auto& v : mat->data) v = std::round(std::clamp(v * 60.0f + 128.0f, 0.0f, 255.0f));
    path_ = dir_ / "index.ivf";
    build_options o;
    o.lists = lists;
    o.metric = m;
    o.storage = storage;
    o.iterations = 10;
    (void)build_ivf(matrix_source(base_, "base"), path_, o, gpu::engines());
  }
  bam::test::temp_dir dir_;
  matrix<float> base_, queries_;
  std::string path_;
};

/// Share of positions where two result sets name the same ids (as sets per query).
double agreement(const search_results& a, const search_results& b) { return recall_at(a.k, a, b.id_matrix()); }

}  // namespace

TEST_F(VectorGpu, KMeansStepAndAssignmentMatchTheCpu) {
  const auto x = read_all(clustered_source({20000, 32, 50, 2, 0.2f, 1.0f}));
  const auto cpu = make_cpu_kmeans(x);
  const auto gpu_engine = gpu::engines().kmeans(x);
  matrix<float> c(64, 32);
  for (std::uint32_t i = 0; i < 64; ++i) std::ranges::copy(x.row(i * 300), c.row(i).begin());
  matrix<float> s_cpu, s_gpu;
  std::vector<std::uint64_t> n_cpu, n_gpu;
  const double o_cpu = cpu->step(c, s_cpu, n_cpu), o_gpu = gpu_engine->step(c, s_gpu, n_gpu);
  EXPECT_NEAR(o_gpu, o_cpu, 1e-3 * o_cpu);
  std::uint64_t moved = 0;
  for (std::uint32_t i = 0; i < 64; ++i) moved += n_cpu[i] > n_gpu[i] ? n_cpu[i] - n_gpu[i] : n_gpu[i] - n_cpu[i];
  EXPECT_LE(moved, 20u) << "more than near-ties assigned differently";
  const auto a_cpu = make_cpu_assigner(c, metric::l2), a_gpu = gpu::engines().assign(c, metric::l2);
  std::vector<std::uint32_t> l_cpu(x.rows), l_gpu(x.rows);
  a_cpu->assign(x.data.data(), x.rows, l_cpu.data());
  a_gpu->assign(x.data.data(), x.rows, l_gpu.data());
  std::uint64_t same = 0;
  for (std::uint64_t i = 0; i < x.rows; ++i) same += l_cpu[i] == l_gpu[i];
  EXPECT_GE(double(same), 0.999 * double(x.rows));
}

TEST_F(VectorGpu, IvfFromVramMatchesTheCpuAndBamMatchesVram) {
  for (const auto storage : {scalar_type::f32, scalar_type::f16, scalar_type::u8}) {
    build(storage, metric::l2);
    const ivf_index index(path_);
    gpu::ivf_searcher searcher(index);
    const gpu::vram_vectors vram(index);
    bam_store store(index, {.gpu = true, .cache_bytes = index.header().vectors.bytes / 10,
                                  .queues = 32, .depth = 256, .workers = 4});
    for (const std::uint32_t nprobe : {1u, 8u, 32u}) {
      const search_options o{10, nprobe};
      const auto g = searcher.search(queries_, o, &vram, 256);  // several batches
      const auto c = visit_scalar(storage, [&](auto tag) {
        using T = decltype(tag);
        return cpu_ivf_search<T>(index, rows_view<T>(reinterpret_cast<const T*>(index.vectors().data()),
                                                     index.size() * index.dim()),
                                 queries_, o);
      });
      EXPECT_GE(agreement(g, c), 0.995) << to_string(storage) << " nprobe " << nprobe;
      // Without the look-ahead warp, and with it reading the default distance, one page, and
      // the whole cache's worth ahead of the scan (a hint: the results must not change).
      const std::pair<bool, std::uint32_t> modes[] = {{false, 0}, {true, 0}, {true, 1}, {true, store.cache().n_slots()}};
      for (const auto& [look_ahead, pages] : modes) {
        const auto b = visit_scalar(storage, [&](auto tag) {
          return searcher.search(queries_, {10, nprobe, look_ahead, pages}, store.vectors<decltype(tag)>(), 300);
        });
        store.cache().check();
        EXPECT_EQ(b.ids, g.ids) << "bam and VRAM differ: " << to_string(storage) << " nprobe " << nprobe
                                << (look_ahead ? " with look-ahead of " + std::to_string(pages) + " pages" : "");
        EXPECT_EQ(b.distances, g.distances);
      }
    }
    EXPECT_GT(store.cache().total_stats().counts.evictions, 0u);
  }
}

TEST_F(VectorGpu, InnerProductAndLargeKMatchTheCpu) {
  build(scalar_type::f32, metric::inner_product);
  const ivf_index index(path_);
  gpu::ivf_searcher searcher(index);
  const gpu::vram_vectors vram(index);
  const rows_view<float> mem(reinterpret_cast<const float*>(index.vectors().data()), index.size() * index.dim());
  for (const std::uint32_t k : {1u, 100u, 256u}) {
    const search_options o{k, 16};
    EXPECT_GE(agreement(searcher.search(queries_, o, &vram), cpu_ivf_search<float>(index, mem, queries_, o)), 0.995) << k;
  }
}

TEST_F(VectorGpu, WideVectorsWithLargeKTakeEightQueriesAnItemAndStillMatch) {
  // Dimension 2048: 16 queries, a tile and their top-k fit a block's shared memory for k = 10
  // but not for k = 200, where work items hold 8 pairs instead; both must give the CPU's lists.
  build(scalar_type::f32, metric::l2, 4000, 16, gpu::max_gpu_dim, 64);
  const ivf_index index(path_);
  gpu::ivf_searcher searcher(index);
  const gpu::vram_vectors vram(index);
  bam_store store(index, {.gpu = true, .cache_bytes = index.header().vectors.bytes / 4,
                                .queues = 32, .depth = 256, .workers = 4});
  const rows_view<float> mem(reinterpret_cast<const float*>(index.vectors().data()), index.size() * index.dim());
  for (const std::uint32_t k : {10u, 200u}) {
    EXPECT_EQ(gpu::scan_queries_per_item(&vram, index.dim(), k), k == 10 ? gpu::scan_queries_max : gpu::scan_queries_min);
    const search_options o{k, 4};
    const auto g = searcher.search(queries_, o, &vram, 32);
    EXPECT_GE(agreement(g, cpu_ivf_search<float>(index, mem, queries_, o)), 0.995) << "k " << k;
    const auto b = searcher.search(queries_, {k, 4, true}, store.vectors<float>(), 32);
    store.cache().check();
    EXPECT_EQ(b.ids, g.ids) << "bam and VRAM differ at k " << k;
    EXPECT_EQ(b.distances, g.distances);
  }
}

TEST_F(VectorGpu, ExactSearchMatchesTheCpuFromVramAndThroughBam) {
  build(scalar_type::f32, metric::l2, 20000, 64);
  const ivf_index index(path_);
  const gpu::vram_vectors base(base_);
  const auto cpu = cpu_exact_search<float>(rows_view<float>(base_.data.data(), base_.data.size()), base_.rows, base_.dim,
                                           metric::l2, queries_, 100, "base");
  const auto g = gpu::exact_search(&base, base_.rows, base_.dim, metric::l2, {}, queries_, 100, "base", 400);
  EXPECT_GE(agreement(g, cpu), 0.999);
  for (std::uint64_t i = 0; i < g.distances.size(); i += 97)
    EXPECT_NEAR(g.distances[i], cpu.distances[i], 1e-3f * std::max(1.0f, cpu.distances[i]));
  bam_store store(index, {.gpu = true, .cache_bytes = 1 << 20, .queues = 16, .workers = 2});
  const auto b = gpu::exact_search(store.vectors<float>(), index.size(), index.dim(), metric::l2, index.ids(), queries_,
                                   10, index.path());
  store.cache().check();
  EXPECT_GE(recall_at(10, b, cpu.id_matrix()), 0.999) << "exact search over the index's vectors through bam";
}

TEST_F(VectorGpu, ScalarMismatchIsRefused) {
  build(scalar_type::f16, metric::l2, 5000, 16);
  const ivf_index index(path_);
  gpu::ivf_searcher searcher(index);
  const gpu::vram_vectors wrong(base_);  // f32
  EXPECT_THROW((void)searcher.search(queries_, {10, 4}, &wrong), bam::invalid_argument);
}
