// SPDX-License-Identifier: Apache-2.0
// bam::vec::build_ivf: trains the coarse quantizer on a sample, assigns every vector to its
// list, and writes the index file with the vectors reordered list by list. Streams the source
// in chunks twice (assign, then write), so the collection never has to fit in memory.
#pragma once

#include "apps/vector/kmeans.hpp"
#include "apps/vector/metric.hpp"
#include "apps/vector/progress.hpp"
#include "apps/vector/scalar.hpp"
#include "apps/vector/vector_source.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace bam::vec {

struct build_options {
  std::uint32_t lists = 1024;
  vec::metric metric = vec::metric::l2;
  scalar_type storage = scalar_type::f32;
  std::uint64_t sample_rows = 0;  ///< k-means training rows; 0: min(rows, 256 x lists)
  std::uint32_t iterations = 20;
  std::uint64_t seed = 1;
  float max_cluster_ratio = 3.0f;  ///< see kmeans_options
  std::uint64_t chunk_rows = 1 << 16;  ///< rows read from the source at once
};

/// Where the heavy parts run (CPU loops, or the GPU).
struct build_engines {
  std::function<std::unique_ptr<kmeans_engine>(const matrix<float>& sample)> kmeans;
  std::function<std::unique_ptr<assigner>(const matrix<float>& centroids, vec::metric m)> assign;
  std::string name;  ///< "cpu" or "gpu", for the summary
};

/// The CPU engines.
[[nodiscard]] build_engines cpu_engines();

struct build_summary {
  std::uint64_t rows = 0;
  std::uint32_t dim = 0, lists = 0;
  std::uint64_t sample_rows = 0;
  double kmeans_objective = 0;  ///< on the sample, last iteration
  std::uint32_t balance_splits = 0;
  std::uint64_t min_list = 0, max_list = 0;
  double imbalance = 0;  ///< n * sum(size^2) / (sum size)^2: 1 when every list has the same size
  double seconds_sample = 0, seconds_kmeans = 0, seconds_assign = 0, seconds_write = 0;
  std::uint64_t file_bytes = 0;
};

/**
 * @brief Builds an IVF index of `base` into `path` (written to path + ".tmp", then renamed).
 * Stored row ids are the source's row numbers.
 * @throw bam::invalid_argument for bad options (lists > rows, a value that does not fit the
 * storage type), naming the row; bam::system_error when the file cannot be written.
 */
build_summary build_ivf(const vector_source& base, const std::string& path, const build_options& o,
                        const build_engines& engines, const progress_fn& progress = {});

}  // namespace bam::vec
