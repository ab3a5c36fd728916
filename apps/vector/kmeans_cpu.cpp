// SPDX-License-Identifier: Apache-2.0
// The CPU k-means engine and assigner: nearest centroids by ||c||^2 - 2 x.c (L2) or -x.c (ip).
#include "apps/vector/cpu_distance.hpp"
#include "apps/vector/kmeans.hpp"

#include "apps/common/parallel.hpp"

#include <limits>

namespace bam::vec {

namespace {

/// Centroids with their squared norms; nearest() under a metric.
class centroid_table {
 public:
  centroid_table(const matrix<float>& c, metric m) : c_(c), m_(m), norms_(c.rows) {
    for (std::uint64_t i = 0; i < c.rows; ++i) norms_[i] = accumulate<false>(c.row(i).data(), c.row(i).data(), c.dim);
  }
  /// (label, key) of the centroid nearest x; the key of L2 omits ||x||^2.
  [[nodiscard]] std::pair<std::uint32_t, float> nearest(const float* x) const {
    std::uint32_t best = 0;
    float best_key = std::numeric_limits<float>::infinity();
    for (std::uint32_t i = 0; i < c_.rows; ++i) {
      const float dot = accumulate<false>(x, c_.row(i).data(), c_.dim);
      const float key = m_ == metric::l2 ? norms_[i] - 2 * dot : -dot;
      if (key < best_key) {
        best_key = key;
        best = i;
      }
    }
    return {best, best_key};
  }

 private:
  const matrix<float>& c_;
  metric m_;
  std::vector<float> norms_;
};

class cpu_kmeans final : public kmeans_engine {
 public:
  explicit cpu_kmeans(const matrix<float>& sample) : sample_(sample) {}

  double step(const matrix<float>& centroids, matrix<float>& sums, std::vector<std::uint64_t>& counts) override {
    const centroid_table table(centroids, metric::l2);
    const unsigned threads = apps::default_thread_count();
    const std::uint64_t k = centroids.rows, d = centroids.dim;
    std::vector<std::vector<double>> part_sums(threads, std::vector<double>(k * d));
    std::vector<std::vector<std::uint64_t>> part_counts(threads, std::vector<std::uint64_t>(k));
    std::vector<double> part_objective(threads);
    apps::parallel_for_ranges(sample_.rows, 1024, threads, [&](std::uint64_t b, std::uint64_t e, unsigned t) {
      for (std::uint64_t i = b; i < e; ++i) {
        const float* x = sample_.row(i).data();
        const auto [label, key] = table.nearest(x);
        part_objective[t] += double(key) + double(accumulate<false>(x, x, sample_.dim));
        ++part_counts[t][label];
        double* s = part_sums[t].data() + label * d;
        for (std::uint64_t j = 0; j < d; ++j) s[j] += x[j];
      }
    });
    sums = matrix<float>(k, std::uint32_t(d));
    counts.assign(k, 0);
    double objective = 0;
    for (unsigned t = 0; t < threads; ++t) {
      objective += part_objective[t];
      for (std::uint64_t c = 0; c < k; ++c) counts[c] += part_counts[t][c];
    }
    apps::parallel_for_ranges(k * d, 4096, threads, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) {
        double s = 0;
        for (unsigned t = 0; t < threads; ++t) s += part_sums[t][i];
        sums.data[i] = float(s);
      }
    });
    return objective;
  }

 private:
  const matrix<float>& sample_;
};

class cpu_assigner final : public assigner {
 public:
  cpu_assigner(const matrix<float>& centroids, metric m) : centroids_(centroids), table_(centroids_, m) {}
  void assign(const float* rows, std::uint64_t n, std::uint32_t* labels) override {
    apps::parallel_for_ranges(n, 256, 0, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) labels[i] = table_.nearest(rows + i * centroids_.dim).first;
    });
  }

 private:
  matrix<float> centroids_;
  centroid_table table_;
};

}  // namespace

std::unique_ptr<kmeans_engine> make_cpu_kmeans(const matrix<float>& sample) { return std::make_unique<cpu_kmeans>(sample); }

std::unique_ptr<assigner> make_cpu_assigner(const matrix<float>& centroids, metric m) {
  return std::make_unique<cpu_assigner>(centroids, m);
}

}  // namespace bam::vec
