// SPDX-License-Identifier: Apache-2.0
// k-means: it finds well-separated clusters, balancing keeps skewed data from piling into one
// list, and sampling draws distinct rows.
#include "apps/vector/generator.hpp"
#include "apps/vector/kmeans.hpp"

#include <bam/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace {

using namespace bam::vec;

matrix<float> clustered(std::uint64_t rows, std::uint32_t dim, std::uint32_t clusters, float spread, float skew,
                        std::uint64_t seed = 3) {
  const clustered_source src({rows, dim, clusters, seed, spread, skew});
  return read_all(src);
}

}  // namespace

TEST(KMeans, ConvergesOnWellSeparatedClusters) {
  // 16 true clusters, 32 centroids: Lloyd from a random start reaches the noise floor (every true
  // cluster owns at least one centroid) and every centroid stays inside one true cluster.
  const std::uint32_t truth = 16, k = 32, dim = 24;
  const float spread = 0.02f;
  const clustered_source src({8000, dim, truth, 3, spread, 1.0f});
  const auto x = read_all(src);
  const auto engine = make_cpu_kmeans(x);
  const auto r = train_kmeans(x, *engine, {k, 25, 7});
  EXPECT_LT(r.objective / double(x.rows), 1.05 * dim * spread * spread) << "a true cluster was left without a centroid";
  EXPECT_EQ(std::accumulate(r.sizes.begin(), r.sizes.end(), std::uint64_t{0}), x.rows);
  const auto assign = make_cpu_assigner(r.centroids, metric::l2);
  std::vector<std::uint32_t> labels(x.rows);
  assign->assign(x.data.data(), x.rows, labels.data());
  std::vector<std::set<std::uint32_t>> origins(k);
  for (std::uint64_t i = 0; i < x.rows; ++i) origins[labels[i]].insert(src.cluster_of(i));
  for (std::uint32_t c = 0; c < k; ++c) EXPECT_LE(origins[c].size(), 1u) << "centroid " << c << " straddles clusters";
}

TEST(KMeans, BalancingKeepsSkewedDataFromPilingIntoOneList) {
  // skew 4: the most popular true cluster holds about half of the rows.
  const std::uint32_t k = 64;
  const auto x = clustered(20000, 16, 40, 0.3f, 4.0f);
  const auto engine = make_cpu_kmeans(x);
  kmeans_options o{k, 20, 11, 3.0f};
  const auto balanced = train_kmeans(x, *engine, o);
  const double mean = double(x.rows) / k;
  const auto largest = *std::max_element(balanced.sizes.begin(), balanced.sizes.end());
  EXPECT_GT(balanced.splits, 0u);
  EXPECT_LE(double(largest), 4.0 * mean) << "a list exploded";
  EXPECT_EQ(std::count(balanced.sizes.begin(), balanced.sizes.end(), 0u), 0) << "an empty list survived";
}

TEST(KMeans, AssignerAgreesWithTheTrainedSizes) {
  const auto x = clustered(3000, 8, 10, 0.05f, 1.0f);
  const auto engine = make_cpu_kmeans(x);
  const auto r = train_kmeans(x, *engine, {10, 10, 1});
  const auto assign = make_cpu_assigner(r.centroids, metric::l2);
  std::vector<std::uint32_t> labels(x.rows);
  assign->assign(x.data.data(), x.rows, labels.data());
  std::vector<std::uint64_t> sizes(10);
  for (auto l : labels) ++sizes[l];
  // The centroids moved once after the last assignment, so allow a handful of rows to change.
  for (std::uint32_t c = 0; c < 10; ++c) EXPECT_NEAR(double(sizes[c]), double(r.sizes[c]), 0.02 * x.rows) << c;
}

TEST(KMeans, SamplesAreDistinctSortedAndSeeded) {
  for (const auto& [rows, n] : {std::pair<std::uint64_t, std::uint64_t>{100, 80}, {1'000'000, 1000}}) {
    const auto s = sample_indices(rows, n, 5);
    ASSERT_EQ(s.size(), n);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    EXPECT_EQ(std::set<std::uint64_t>(s.begin(), s.end()).size(), n);
    EXPECT_LT(s.back(), rows);
    EXPECT_EQ(s, sample_indices(rows, n, 5));
    EXPECT_NE(s, sample_indices(rows, n, 6));
  }
}

TEST(KMeans, RefusesMoreClustersThanRows) {
  const auto x = clustered(10, 4, 2, 0.1f, 1.0f);
  const auto engine = make_cpu_kmeans(x);
  EXPECT_THROW((void)train_kmeans(x, *engine, {11, 5, 1}), bam::invalid_argument);
  EXPECT_THROW((void)train_kmeans(x, *engine, {0, 5, 1}), bam::invalid_argument);
}
