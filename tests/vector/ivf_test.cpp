// SPDX-License-Identifier: Apache-2.0
// The IVF index end to end on the CPU: build to a file, reopen it, search through bam::array
// (an emulated NVMe controller serving the index file, a small page cache, CPU threads running
// the portable scan) and through plain memory; the two agree and reach the expected recall.
// Damaged index files and bad requests are refused.
#include "apps/vector/bam_store.hpp"
#include "apps/vector/cpu_search.hpp"
#include "apps/vector/generator.hpp"
#include "apps/vector/ivf_build.hpp"
#include "apps/vector/ivf_index.hpp"
#include "apps/vector/recall.hpp"
#include "apps/vector/rows_view.hpp"

#include "tests/vector/temp_dir.hpp"

#include <bam/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

using namespace bam::vec;

cluster_options collection(std::uint64_t rows) { return {rows, 32, 200, 42, 0.25f, 1.5f}; }

/// Exact neighbours of the queries in the source (the ground truth).
matrix<std::int64_t> truth(const matrix<float>& base, const matrix<float>& q, metric m, std::uint32_t k) {
  return cpu_exact_search<float>(rows_view<float>(base.data.data(), base.data.size()), base.rows, base.dim, m, q, k,
                                 "base")
      .id_matrix();
}

template <class T>
rows_view<T> in_memory(const ivf_index& index) {
  return {reinterpret_cast<const T*>(index.vectors().data()), index.size() * index.dim()};
}

struct built {
  bam::test::temp_dir dir;
  matrix<float> base, queries;
  std::string path;
};

std::unique_ptr<built> build(std::uint64_t rows, scalar_type storage, metric m, std::uint32_t lists, bool integers) {
  auto b = std::make_unique<built>();
  b->base = read_all(clustered_source(collection(rows)));
  b->queries = read_all(clustered_source({200, 32, 200, 42, 0.25f, 1.5f}, 1));
  if (integers) {  // u8 storage needs values in 0..255
    for (auto* mat : {&b->base, &b->queries})
      for (auto& v : mat->data) v = std::round(std::clamp(v * 60.0f + 128.0f, 0.0f, 255.0f));
  }
  b->path = b->dir / "index.ivf";
  build_options o;
  o.lists = lists;
  o.metric = m;
  o.storage = storage;
  o.iterations = 10;
  o.chunk_rows = 4096;
  const auto s = build_ivf(matrix_source(b->base, "base"), b->path, o, cpu_engines());
  EXPECT_EQ(s.rows, rows);
  EXPECT_LE(double(s.max_list), 4.0 * double(rows) / lists);
  return b;
}

}  // namespace

TEST(Ivf, IndexFileHoldsEveryVectorOnceListByList) {
  const auto b = build(6000, scalar_type::f32, metric::l2, 32, false);
  const ivf_index index(b->path);
  EXPECT_EQ(index.size(), 6000u);
  EXPECT_EQ(index.dim(), 32u);
  EXPECT_EQ(index.header().vectors.offset % ivf_alignment, 0u);
  std::vector<bool> seen(6000);
  const auto* v = reinterpret_cast<const float*>(index.vectors().data());
  for (std::uint64_t row = 0; row < index.size(); ++row) {
    const auto id = std::uint64_t(index.ids()[row]);
    ASSERT_FALSE(seen[id]) << "id " << id << " stored twice";
    seen[id] = true;
    for (std::uint32_t j = 0; j < 32; ++j) ASSERT_EQ(v[row * 32 + j], b->base.data[id * 32 + j]);
  }
  // Each row sits in the list of its nearest centroid.
  const auto assign = make_cpu_assigner(
      [&] {
        matrix<float> c(index.n_lists(), index.dim());
        std::copy(index.centroids().begin(), index.centroids().end(), c.data.begin());
        return c;
      }(),
      metric::l2);
  for (std::uint32_t l = 0; l < index.n_lists(); ++l)
    for (std::uint64_t row = index.list_offsets()[l]; row < index.list_offsets()[l + 1]; row += 97) {
      std::uint32_t label = 0;
      assign->assign(v + row * 32, 1, &label);
      ASSERT_EQ(label, l);
    }
}

TEST(Ivf, SearchThroughBamArrayMatchesMemoryAndReachesRecall) {
  const auto b = build(20000, scalar_type::f32, metric::l2, 64, false);
  const ivf_index index(b->path);
  const auto gt = truth(b->base, b->queries, metric::l2, 10);
  bam::apps::storage_options so;
  so.backend = bam::apps::storage_backend::file;
  so.cache_bytes = index.header().vectors.bytes / 10;  // 10% of the vectors
  so.workers = 1;
  so.emulator.idle_spin_ns = 5'000;  // two cores: the controller thread must not starve the searchers
  bam_store store(index, so);
  const auto cached = store.vectors<float>();
  matrix<float> few(40, b->queries.dim);  // through bam: 40 queries keep the test short on 2 cores
  std::copy_n(b->queries.data.begin(), few.data.size(), few.data.begin());
  double last = 0;
  for (const std::uint32_t nprobe : {1u, 4u, 16u}) {
    const search_options o{10, nprobe};
    const auto mem = cpu_ivf_search<float>(index, in_memory<float>(index), b->queries, o);
    const auto via_bam = cpu_ivf_search<float>(index, cached, few, o);
    const std::size_t n = few.rows * 10;
    EXPECT_TRUE(std::equal(via_bam.ids.begin(), via_bam.ids.end(), mem.ids.begin())) << "nprobe " << nprobe;
    EXPECT_TRUE(std::equal(via_bam.distances.begin(), via_bam.distances.begin() + std::ptrdiff_t(n), mem.distances.begin()));
    const double r = recall_at(10, mem, gt);
    EXPECT_GE(r, last) << "recall falls with more probes";
    last = r;
  }
  EXPECT_GE(last, 0.9) << "recall@10 at nprobe 16 of 64 lists";
  store.cache().check();
  const auto s = store.cache().total_stats();
  EXPECT_GT(s.counts.misses, 0u);
  EXPECT_GT(s.counts.evictions, 0u) << "the cache holds 10% of the vectors";
}

TEST(Ivf, EveryPageSizeServesARamCopyAndTheFile) {
  const auto b = build(6000, scalar_type::f32, metric::l2, 16, false);
  const ivf_index index(b->path);
  const auto& sec = index.header().vectors;
  ASSERT_GT(sec.offset + sec.bytes + (64u << 10), index.header().file_bytes)
      << "the last 64 KiB page must end past the file for this test";
  using bam::apps::storage_backend;
  EXPECT_THROW(bam_store(index, {.page_bytes = 1000, .workers = 1}), bam::invalid_argument);
  EXPECT_THROW(bam_store(index, {.cache_bytes = 0, .workers = 1}), bam::invalid_argument);
  const search_options o{10, 16};  // every list, so the last page is read
  const auto mem = cpu_ivf_search<float>(index, in_memory<float>(index), b->queries, o);
  for (const std::size_t page : {std::size_t{4} << 10, std::size_t{8} << 10, std::size_t{64} << 10, std::size_t{2} << 20}) {
    for (const auto backend : {storage_backend::ram, storage_backend::file}) {
      bam::apps::storage_options so{.backend = backend, .cache_bytes = 1 << 20, .page_bytes = page, .workers = 1};
      so.emulator.idle_spin_ns = 5'000;
      bam_store store(index, so);
      const auto via_bam = cpu_ivf_search<float>(index, store.vectors<float>(), b->queries, o);
      EXPECT_EQ(via_bam.ids, mem.ids) << to_string(backend) << ", " << page << "-byte pages";
      EXPECT_EQ(via_bam.distances, mem.distances) << to_string(backend) << ", " << page << "-byte pages";
      store.cache().check();
    }
  }
}

TEST(Ivf, HalfAndByteStorageSearchAndKeepRecall) {
  for (const auto storage : {scalar_type::f16, scalar_type::u8}) {
    const auto b = build(8000, storage, metric::l2, 32, storage == scalar_type::u8);
    const ivf_index index(b->path);
    EXPECT_EQ(index.scalar(), storage);
    const auto gt = truth(b->base, b->queries, metric::l2, 10);
    bam::apps::storage_options so{.cache_bytes = 1 << 20, .workers = 1};
    so.emulator.idle_spin_ns = 5'000;
    bam_store store(index, so);
    const search_options o{10, 12};
    const double r = visit_scalar(storage, [&](auto tag) {
      using T = decltype(tag);
      const auto mem = cpu_ivf_search<T>(index, in_memory<T>(index), b->queries, o);
      const auto via_bam = cpu_ivf_search<T>(index, store.vectors<T>(), b->queries, o);
      EXPECT_EQ(mem.ids, via_bam.ids);
      return recall_at(10, mem, gt);
    });
    EXPECT_GE(r, 0.85) << to_string(storage);
  }
}

TEST(Ivf, InnerProductIndexRanksByDotProduct) {
  const auto b = build(6000, scalar_type::f32, metric::inner_product, 16, false);
  const ivf_index index(b->path);
  EXPECT_EQ(index.metric(), metric::inner_product);
  const auto all = cpu_ivf_search<float>(index, in_memory<float>(index), b->queries, {10, 16});  // every list
  const auto gt = truth(b->base, b->queries, metric::inner_product, 10);
  EXPECT_GE(recall_at(10, all, gt), 0.99);
  for (std::uint64_t q = 0; q < all.queries; ++q)
    for (std::uint32_t j = 1; j < 10; ++j) ASSERT_GE(all.distances[q * 10 + j - 1], all.distances[q * 10 + j]);
}

TEST(Ivf, DamagedIndexFilesAreRefused) {
  const auto b = build(3000, scalar_type::f32, metric::l2, 8, false);
  const auto size = std::filesystem::file_size(b->path);
  const auto expect_refused = [&](const std::string& path, const std::string& what) {
    try {
      const ivf_index index(path);
      ADD_FAILURE() << "opened a damaged index: " << what;
    } catch (const bam::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  };
  const std::string cut = b->dir / "cut.ivf";
  std::filesystem::copy_file(b->path, cut);
  std::filesystem::resize_file(cut, size - 4096);
  expect_refused(cut, "truncated");

  const std::string flipped = b->dir / "flipped.ivf";
  std::filesystem::copy_file(b->path, flipped);
  {
    std::fstream f(flipped, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(20);
    f.put(char(33));  // dim
  }
  expect_refused(flipped, "checksum");

  const std::string junk = b->dir / "junk.ivf";
  std::ofstream(junk) << std::string(5000, 'x');
  expect_refused(junk, "bad magic");
}

TEST(Ivf, BadRequestsAreRefusedClearly) {
  const auto b = build(3000, scalar_type::f32, metric::l2, 8, false);
  const ivf_index index(b->path);
  const auto mem = in_memory<float>(index);
  const auto message = [&](const matrix<float>& q, search_options o) {
    try {
      (void)cpu_ivf_search<float>(index, mem, q, o);
    } catch (const bam::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const matrix<float> wrong_dim(3, 31);
  EXPECT_NE(message(wrong_dim, {10, 4}).find("queries have 31 dimensions"), std::string::npos);
  EXPECT_NE(message(b->queries, {3001, 4}).find("larger than the collection"), std::string::npos);
  EXPECT_NE(message(b->queries, {10, 9}).find("exceeds the 8 lists"), std::string::npos);
  EXPECT_NE(message(b->queries, {0, 4}).find("k must be at least 1"), std::string::npos);

  build_options o;
  o.lists = 5000;
  EXPECT_THROW(build_ivf(matrix_source(b->base, "base"), b->dir / "x.ivf", o, cpu_engines()), bam::invalid_argument);
  o.lists = 4;
  o.storage = scalar_type::u8;  // the float collection has negative values
  try {
    build_ivf(matrix_source(b->base, "base"), b->dir / "u8.ivf", o, cpu_engines());
    ADD_FAILURE() << "u8 storage accepted negative values";
  } catch (const bam::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit u8 storage"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(b->dir / "u8.ivf.tmp")) << "a failed build left its temporary file";
}
