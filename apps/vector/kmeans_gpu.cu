// SPDX-License-Identifier: Apache-2.0
// The GPU k-means engine and assigner: distances by cuBLAS GEMM (||c||^2 - 2 x.c), argmin per
// row, members grouped by cluster with a stable CUB radix sort, per-cluster sums by one block
// per cluster in member order (deterministic).
#include "apps/vector/gpu_rows.cuh"
#include "apps/vector/gpu_search.hpp"
#include "apps/vector/gpu_select.cuh"
#include "apps/vector/gpu_util.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <algorithm>
#include <numeric>
#include <vector>

namespace bam::vec::gpu {

namespace {

/// Rows scored against all centroids at once: the score matrix stays under 512 MiB.
std::uint64_t chunk_rows(std::uint32_t k) { return std::max<std::uint64_t>(1024, (std::uint64_t{128} << 20) / k); }

/// Blocks of 8 warps, one row each.
__global__ void norms_kernel(const float* rows, std::uint64_t n, std::uint32_t d, float* norms) {
  using warp_sum = cub::WarpReduce<float>;
  __shared__ typename warp_sum::TempStorage storage[8];
  const std::uint64_t row = blockIdx.x * 8ull + threadIdx.x / 32;
  if (row >= n) return;
  float s = 0;
  for (std::uint32_t j = threadIdx.x % 32; j < d; j += 32) {
    const float v = rows[row * d + j];
    s += v * v;
  }
  s = warp_sum(storage[threadIdx.x / 32]).Sum(s);  // valid in lane 0
  if (threadIdx.x % 32 == 0) norms[row] = s;
}

__global__ void count_kernel(const std::uint32_t* labels, std::uint64_t n, std::uint32_t* counts) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    atomicAdd(&counts[labels[i]], 1u);
}

__global__ void iota_kernel(std::uint32_t* v, std::uint64_t n) {
  const std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (i < n) v[i] = std::uint32_t(i);
}

/// Block c sums the rows of cluster c (members[begin[c] .. begin[c + 1]) in sorted order).
__global__ void sums_kernel(const float* rows, std::uint32_t d, const std::uint32_t* members, const std::uint32_t* begin,
                            float* sums) {
  const std::uint32_t c = blockIdx.x;
  for (std::uint32_t j = threadIdx.x; j < d; j += blockDim.x) {
    float s = 0;
    for (std::uint32_t i = begin[c]; i < begin[c + 1]; ++i) s += rows[std::uint64_t(members[i]) * d + j];
    sums[std::uint64_t(c) * d + j] = s;
  }
}

class gpu_kmeans final : public kmeans_engine {
 public:
  explicit gpu_kmeans(const matrix<float>& sample) : n_(sample.rows), d_(sample.dim), x_(sample.data.size()), xnorm_(n_) {
    BAM_EXPECTS(n_ < (std::uint64_t{1} << 32), "GPU k-means: the sample must have fewer than 2^32 rows");
    x_.upload(sample.data);
    row_norms(x_.data(), n_, d_, xnorm_.data());
  }

  double step(const matrix<float>& centroids, matrix<float>& sums, std::vector<std::uint64_t>& counts) override {
    const auto k = std::uint32_t(centroids.rows);
    c_.reserve(centroids.data.size());
    c_.upload(centroids.data);
    cnorm_.reserve(k);
    row_norms(c_.data(), k, d_, cnorm_.data());
    labels_.reserve(n_);
    keys_.reserve(n_);
    const std::uint64_t chunk = std::min(n_, chunk_rows(k));
    scores_.reserve(chunk * k);
    for (std::uint64_t r = 0; r < n_; r += chunk) {
      const std::uint64_t rows = std::min(chunk, n_ - r);
      blas_.scores(x_.data() + r * d_, rows, c_.data(), k, d_, scores_.data());
      argmin_rows(scores_.data(), rows, k, cnorm_.data(), metric::l2, labels_.data() + r, keys_.data() + r);
    }
    // Group members by cluster: stable sort of (label, row) pairs, then counts and their scan.
    sorted_labels_.reserve(n_);
    members_.reserve(2 * n_);
    iota_kernel<<<unsigned(ceil_div(n_, 256)), 256>>>(members_.data(), n_);
    check_launch("k-means iota");
    std::size_t temp_bytes = 0;
    const int bits = std::max(1, 32 - __builtin_clz(std::max(k, 2u) - 1));
    BAM_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, labels_.data(), sorted_labels_.data(),
                                                 members_.data(), members_.data() + n_, n_, 0, bits));
    temp_.reserve(std::max<std::size_t>(temp_bytes, 1));
    BAM_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp_.data(), temp_bytes, labels_.data(), sorted_labels_.data(),
                                                 members_.data(), members_.data() + n_, n_, 0, bits));
    counts_.reserve(k + 1);
    begin_.reserve(k + 1);
    BAM_CUDA_TRY(cudaMemset(counts_.data(), 0, (k + 1) * sizeof(std::uint32_t)));
    count_kernel<<<unsigned(std::min<std::uint64_t>(ceil_div(n_, 256), 4096)), 256>>>(labels_.data(), n_, counts_.data());
    check_launch("k-means counts");
    temp_bytes = 0;
    BAM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts_.data(), begin_.data(), k + 1));
    temp_.reserve(std::max<std::size_t>(temp_bytes, 1));
    BAM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp_.data(), temp_bytes, counts_.data(), begin_.data(), k + 1));
    sums_.reserve(std::size_t(k) * d_);
    sums_kernel<<<k, 256>>>(x_.data(), d_, members_.data() + n_, begin_.data(), sums_.data());
    check_launch("k-means sums", true);

    sums = matrix<float>(k, d_);
    sums_.download(sums.data);
    std::vector<std::uint32_t> c32(k);
    counts_.download(c32);
    counts.assign(c32.begin(), c32.end());
    std::vector<float> keys(n_), xn(n_);
    keys_.download(keys);
    xnorm_.download(xn);
    double objective = 0;
    for (std::uint64_t i = 0; i < n_; ++i) objective += std::max(0.0, double(keys[i]) + double(xn[i]));
    return objective;
  }

 private:
  std::uint64_t n_;
  std::uint32_t d_;
  blas blas_;
  host::cuda_buffer<float> x_, xnorm_, c_, cnorm_, scores_, keys_, sums_;
  host::cuda_buffer<std::uint32_t> labels_, sorted_labels_, members_, counts_, begin_;
  host::cuda_buffer<std::byte> temp_;
};

class gpu_assigner final : public assigner {
 public:
  gpu_assigner(const matrix<float>& centroids, metric m)
      : k_(std::uint32_t(centroids.rows)), d_(centroids.dim), m_(m), c_(centroids.data.size()), cnorm_(k_) {
    c_.upload(centroids.data);
    row_norms(c_.data(), k_, d_, cnorm_.data());
  }

  void assign(const float* rows, std::uint64_t n, std::uint32_t* labels) override {
    const std::uint64_t chunk = std::min(n, chunk_rows(k_));
    x_.reserve(chunk * d_);
    scores_.reserve(chunk * k_);
    labels_.reserve(chunk);
    keys_.reserve(chunk);
    for (std::uint64_t r = 0; r < n; r += chunk) {
      const std::uint64_t count = std::min(chunk, n - r);
      x_.upload({rows + r * d_, count * d_});
      blas_.scores(x_.data(), count, c_.data(), k_, d_, scores_.data());
      argmin_rows(scores_.data(), count, k_, cnorm_.data(), m_, labels_.data(), keys_.data());
      labels_.download({labels + r, count});
    }
  }

 private:
  std::uint32_t k_, d_;
  metric m_;
  blas blas_;
  host::cuda_buffer<float> c_, cnorm_, x_, scores_, keys_;
  host::cuda_buffer<std::uint32_t> labels_;
};

}  // namespace

void row_norms(const float* rows, std::uint64_t n, std::uint32_t d, float* norms) {
  if (n == 0) return;
  norms_kernel<<<unsigned(ceil_div(n, 8)), 256>>>(rows, n, d, norms);
  check_launch("row_norms");
}

build_engines engines() {
  return {[](const matrix<float>& s) -> std::unique_ptr<kmeans_engine> { return std::make_unique<gpu_kmeans>(s); },
          [](const matrix<float>& c, metric m) -> std::unique_ptr<assigner> { return std::make_unique<gpu_assigner>(c, m); },
          "gpu"};
}

}  // namespace bam::vec::gpu
