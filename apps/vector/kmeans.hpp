// SPDX-License-Identifier: Apache-2.0
// bam::vec: k-means for the IVF coarse quantizer. The Lloyd loop, initialisation and balancing
// run on the host over k x dim centroids; the heavy part of each step (assigning the sample
// and summing it per cluster) is an engine: CPU loops here, cuBLAS + CUB in kmeans_gpu.cu.
#pragma once

#include "apps/vector/matrix.hpp"
#include "apps/vector/metric.hpp"
#include "apps/vector/progress.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace bam::vec {

struct kmeans_options {
  std::uint32_t k = 0;            ///< clusters (IVF lists)
  std::uint32_t iterations = 20;  ///< Lloyd iterations
  std::uint64_t seed = 1;         ///< picks the initial centroids
  /// Balance: after each iteration but the last, a cluster holding more than this many times
  /// the mean size is split in two, taking the centroid of the smallest cluster (and empty
  /// clusters always take half of a large one), so no list explodes.
  float max_cluster_ratio = 3.0f;
};

struct kmeans_result {
  matrix<float> centroids;           ///< k x dim
  std::vector<std::uint64_t> sizes;  ///< sample rows per cluster in the last assignment
  double objective = 0;              ///< sum of squared distances in the last assignment
  std::uint32_t splits = 0;          ///< clusters moved by balancing, over all iterations
};

/// The heavy half of a Lloyd step over a sample the engine holds (L2 always).
class kmeans_engine {
 public:
  virtual ~kmeans_engine() = default;
  /// Assigns every sample row to its nearest centroid; fills per-cluster sums (k x dim) and
  /// counts, and returns the sum of squared distances.
  virtual double step(const matrix<float>& centroids, matrix<float>& sums, std::vector<std::uint64_t>& counts) = 0;
};

/// Labels rows with their nearest centroid under a metric (a vector's IVF list).
class assigner {
 public:
  virtual ~assigner() = default;
  /// labels[i] = the centroid nearest rows[i * dim ..] (L2: smallest distance; ip: largest dot).
  virtual void assign(const float* rows, std::uint64_t n, std::uint32_t* labels) = 0;
};

/// CPU engine over `sample` (it must outlive the engine), using every hardware thread.
[[nodiscard]] std::unique_ptr<kmeans_engine> make_cpu_kmeans(const matrix<float>& sample);
/// CPU assigner (copies the centroids).
[[nodiscard]] std::unique_ptr<assigner> make_cpu_assigner(const matrix<float>& centroids, metric m);

/**
 * @brief Trains k centroids on `sample` with `engine`.
 * @throw bam::invalid_argument when k is 0 or exceeds the sample's rows
 */
[[nodiscard]] kmeans_result train_kmeans(const matrix<float>& sample, kmeans_engine& engine, const kmeans_options& o,
                                         const progress_fn& progress = {});

/// Rows [0, n) of `m` picked uniformly without replacement (seeded), in increasing order.
[[nodiscard]] std::vector<std::uint64_t> sample_indices(std::uint64_t rows, std::uint64_t n, std::uint64_t seed);

}  // namespace bam::vec
