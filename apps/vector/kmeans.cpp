// SPDX-License-Identifier: Apache-2.0
// The Lloyd loop, its initialisation and the balancing of cluster sizes (host side).
#include "apps/vector/kmeans.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <numeric>
#include <queue>
#include <random>
#include <unordered_set>

namespace bam::vec {

namespace {

/// Moves centroid `to` next to centroid `from`, both nudged apart along alternating coordinates
/// (relative 1/1024), so the next assignment splits `from`'s members between them.
void split(matrix<float>& c, std::uint32_t from, std::uint32_t to) {
  constexpr float eps = 1.0f / 1024;
  auto a = c.row(from);
  auto b = c.row(to);
  for (std::uint32_t j = 0; j < c.dim; ++j) {
    const float v = a[j];
    const bool even = j % 2 == 0;
    a[j] = v * (even ? 1 - eps : 1 + eps);
    b[j] = v * (even ? 1 + eps : 1 - eps);
  }
}

/**
 * Balancing after an update: every empty cluster takes half of the currently largest one; then,
 * while the largest holds more than `ratio` x the mean and the smallest holds less than the mean
 * / `ratio`, the smallest gives up its centroid to split the largest (at most k / 4 times).
 * Sizes are estimates (a split halves the donor) until the next assignment.
 * @return clusters moved
 */
std::uint32_t balance(matrix<float>& c, std::vector<std::uint64_t> sizes, float ratio) {
  const auto k = std::uint32_t(sizes.size());
  const double mean = double(std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0})) / k;
  std::vector<std::uint32_t> ascending(k);
  std::iota(ascending.begin(), ascending.end(), 0u);
  std::stable_sort(ascending.begin(), ascending.end(), [&](auto a, auto b) { return sizes[a] < sizes[b]; });
  using entry = std::pair<std::uint64_t, std::uint32_t>;  // (size, cluster); stale when sizes differ
  std::priority_queue<entry> largest;
  for (std::uint32_t i = 0; i < k; ++i) largest.push({sizes[i], i});
  const auto pop_largest = [&]() {
    while (largest.top().first != sizes[largest.top().second]) largest.pop();
    const entry e = largest.top();
    largest.pop();
    return e;
  };
  std::uint32_t moved = 0;
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint32_t small = ascending[i];
    const bool empty = sizes[small] == 0;
    if (!empty && (moved >= k / 4 || double(sizes[small]) * ratio >= mean)) break;
    const auto [big_size, big] = pop_largest();
    if (!empty && double(big_size) <= ratio * mean) break;
    if (big_size < 2 || big == small) {
      largest.push({big_size, big});
      if (!empty) break;
      continue;
    }
    split(c, big, small);
    sizes[big] = big_size - big_size / 2;
    sizes[small] = big_size / 2;
    largest.push({sizes[big], big});
    largest.push({sizes[small], small});
    ++moved;
  }
  return moved;
}

}  // namespace

std::vector<std::uint64_t> sample_indices(std::uint64_t rows, std::uint64_t n, std::uint64_t seed) {
  BAM_EXPECTS(n <= rows, "cannot sample " + std::to_string(n) + " of " + std::to_string(rows) + " rows");
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> picked;
  if (n * 2 >= rows) {  // dense: a partial shuffle of all rows
    std::vector<std::uint64_t> all(rows);
    std::iota(all.begin(), all.end(), std::uint64_t{0});
    for (std::uint64_t i = 0; i < n; ++i) std::swap(all[i], all[i + rng() % (rows - i)]);
    picked.assign(all.begin(), all.begin() + std::ptrdiff_t(n));
  } else {  // sparse: Floyd's algorithm (at step j, a repeat t is replaced by j, itself new)
    std::unordered_set<std::uint64_t> set;
    set.reserve(n * 2);
    for (std::uint64_t j = rows - n; j < rows; ++j) {
      const std::uint64_t t = rng() % (j + 1);
      set.insert(set.contains(t) ? j : t);
    }
    picked.assign(set.begin(), set.end());
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

kmeans_result train_kmeans(const matrix<float>& sample, kmeans_engine& engine, const kmeans_options& o,
                           const progress_fn& progress) {
  BAM_EXPECTS(o.k > 0, "k-means: the number of clusters must be positive");
  BAM_EXPECTS(o.k <= sample.rows, "k-means: " + std::to_string(o.k) + " clusters need at least as many training rows, the sample has " +
                                      std::to_string(sample.rows));
  BAM_EXPECTS(o.iterations > 0, "k-means: at least one iteration");
  BAM_EXPECTS(o.max_cluster_ratio > 1.0f, "k-means: max_cluster_ratio must exceed 1");
  kmeans_result r;
  r.centroids = matrix<float>(o.k, sample.dim);
  const auto init = sample_indices(sample.rows, o.k, o.seed);
  for (std::uint32_t c = 0; c < o.k; ++c) std::ranges::copy(sample.row(init[c]), r.centroids.row(c).begin());

  matrix<float> sums(o.k, sample.dim);
  for (std::uint32_t it = 0; it < o.iterations; ++it) {
    r.objective = engine.step(r.centroids, sums, r.sizes);
    for (std::uint32_t c = 0; c < o.k; ++c) {
      if (r.sizes[c] == 0) continue;  // keeps its place until balancing moves it
      const float inv = 1.0f / float(r.sizes[c]);
      auto dst = r.centroids.row(c);
      const auto src = sums.row(c);
      for (std::uint32_t j = 0; j < sample.dim; ++j) dst[j] = src[j] * inv;
    }
    if (it + 1 < o.iterations) r.splits += balance(r.centroids, r.sizes, o.max_cluster_ratio);
    report(progress, "k-means", it + 1, o.iterations);
  }
  return r;
}

}  // namespace bam::vec
