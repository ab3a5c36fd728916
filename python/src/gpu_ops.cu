// SPDX-License-Identifier: Apache-2.0
// Kernels of the Python package. Gathered rows that never straddle a page go 32 to a warp: each
// lane pins the page of one row, so a warp's misses are read together, and the warp then copies
// the rows one by one, coalesced. Other rows of at least a warp's worth of elements are read by
// one warp each (read_range: the warp pins each page once and its lanes copy strided); shorter
// rows and every write go element by element, a warp's lanes coalescing their pages in the
// cache. Kernels stride over their work with whole warps, so every lane of a warp runs the same
// iterations of a row loop.
#include "gpu_ops.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/gpu/warp_group.cuh>

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>

namespace bam::python::gpu {

namespace {

// Two blocks of 256 threads an SM at least: the cache's kernels need up to 128 registers a
// thread, and more would leave one block (8 warps) an SM to hide every miss.
constexpr unsigned block_threads = 256;

/**
 * @brief Blocks of `kernel` for `threads` threads of work: at most as many as the GPU holds at
 * once, so every warp runs from the start and one warp's wait for a miss overlaps the others'
 * work (a grid in waves would wait for the slowest miss of every wave).
 */
template <class Kernel>
unsigned blocks_for(Kernel kernel, std::uint64_t threads) {
  int device = 0, sms = 0, per_sm = 0;
  BAM_CUDA_TRY(cudaGetDevice(&device));
  BAM_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  BAM_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(block_threads), 0));
  const std::uint64_t resident = std::uint64_t(std::max(1, sms * per_sm));
  return unsigned(std::clamp<std::uint64_t>((threads + block_threads - 1) / block_threads, 1, resident));
}

/// Launches `kernel` over `threads` threads of work on `stream`.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), std::uint64_t threads, stream_handle stream, Args&&... args) {
  kernel<<<blocks_for(kernel, threads), block_threads, 0, stream>>>(std::forward<Args>(args)...);
  BAM_CUDA_TRY(cudaGetLastError());
}

__device__ std::uint64_t global_thread() { return std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ std::uint64_t grid_threads() { return std::uint64_t(gridDim.x) * blockDim.x; }

__global__ void find_out_of_range(const std::int64_t* index, std::uint64_t n, std::uint64_t rows,
                                  unsigned long long* first_bad) {
  for (std::uint64_t k = global_thread(); k < n; k += grid_threads())
    if (index[k] < 0 || std::uint64_t(index[k]) >= rows) atomicMin(first_bad, (unsigned long long)k);
}

/// Rows whose `row` elements divide the elements per page: 32 rows a warp at a time.
template <class T>
__global__ void __launch_bounds__(block_threads, 2) gather_by_page_pins(array<T> a, const std::int64_t* index, std::uint64_t n, std::uint64_t row,
                                    T* out) {
  const unsigned lane = threadIdx.x % 32;
  for (std::uint64_t base = global_thread() / 32 * 32; base < n; base += grid_threads()) {
    warp_group g;
    const std::uint64_t k = base + lane < n ? base + lane : base;  // spare lanes repeat the first row
    const std::uint64_t first = std::uint64_t(index[k]) * row;
    const auto page = a.pin_page(g, first);  // the warp's pages at once; failures: in check()
    const std::uint64_t mine = page.ok() ? reinterpret_cast<std::uint64_t>(&page[first - page.first()]) : 0;
    const std::uint64_t rows = n - base < 32 ? n - base : 32;
    for (unsigned r = 0; r < rows; ++r) {
      const T* src = reinterpret_cast<const T*>(g.shfl(mine, r));  // the same on every lane
      if (src == nullptr) continue;
      T* dst = out + (base + r) * row;
      for (std::uint64_t j = lane; j < row; j += 32) dst[j] = src[j];
    }
  }  // each iteration's pins are released together as `page` leaves its scope
}

template <class T>
__global__ void __launch_bounds__(block_threads, 2) gather_by_warp(array<T> a, const std::int64_t* index, std::uint64_t n, std::uint64_t row, T* out) {
  for (std::uint64_t k = global_thread() / 32; k < n; k += grid_threads() / 32) {
    warp_group g;
    (void)a.read_range(g, std::uint64_t(index[k]) * row, row, out + k * row);  // failures: in check()
  }
}

template <class T>
__global__ void __launch_bounds__(block_threads, 2) gather_by_element(array<T> a, const std::int64_t* index, std::uint64_t n, std::uint64_t row, T* out) {
  for (std::uint64_t e = global_thread(); e < n * row; e += grid_threads()) {
    warp_group g;
    T v{};
    (void)a.load(g, std::uint64_t(index[e / row]) * row + e % row, v);
    out[e] = v;
  }
}

/// One warp per page-aligned piece of [first, first + n).
template <class T>
__global__ void __launch_bounds__(block_threads, 2) read_by_page(array<T> a, std::uint64_t first, std::uint64_t n, T* out) {
  const std::uint64_t per_page = a.elems_per_page(), p0 = first / per_page;
  const std::uint64_t pages = (first + n - 1) / per_page - p0 + 1;
  for (std::uint64_t p = global_thread() / 32; p < pages; p += grid_threads() / 32) {
    const std::uint64_t lo = std::max(first, (p0 + p) * per_page);
    const std::uint64_t hi = std::min(first + n, (p0 + p + 1) * per_page);
    warp_group g;
    (void)a.read_range(g, lo, hi - lo, out + (lo - first));
  }
}

template <class T>
__global__ void __launch_bounds__(block_threads, 2) write_by_element(array<T> a, const std::int64_t* index, std::uint64_t n, std::uint64_t row,
                                 const T* values) {
  for (std::uint64_t e = global_thread(); e < n * row; e += grid_threads()) {
    warp_group g;
    (void)a.store(g, std::uint64_t(index[e / row]) * row + e % row, values[e]);
  }
}

template <class T>
__global__ void __launch_bounds__(block_threads, 2) add_by_element(array<T> a, const std::int64_t* index, std::uint64_t n, std::uint64_t row,
                               const T* values) {
  for (std::uint64_t e = global_thread(); e < n * row; e += grid_threads())
    (void)a.fetch_add(std::uint64_t(index[e / row]) * row + e % row, values[e]);
}

template <class T>
using element_of = typename std::decay_t<T>::value_type;

}  // namespace

int current_device() {
  int d = 0;
  BAM_CUDA_TRY(cudaGetDevice(&d));
  return d;
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: not an error to keep
    return 0;
  }
  return n;
}

std::uint64_t first_out_of_range(const std::int64_t* index, std::uint64_t n, std::uint64_t rows,
                                 std::int64_t* bad_value, stream_handle stream) {
  if (n == 0) return 0;
  // Stream-ordered scratch (cudaFree would wait for the whole device), freed on every way out.
  unsigned long long* word = nullptr;
  BAM_CUDA_TRY(cudaMallocAsync(&word, sizeof *word, stream));
  const auto release = [stream](unsigned long long* p) { (void)cudaFreeAsync(p, stream); };
  const std::unique_ptr<unsigned long long, decltype(release)> owner(word, release);
  BAM_CUDA_TRY(cudaMemsetAsync(word, 0xff, sizeof *word, stream));
  launch(find_out_of_range, n, stream, index, n, rows, word);
  unsigned long long first = 0;
  BAM_CUDA_TRY(cudaMemcpyAsync(&first, word, sizeof first, cudaMemcpyDeviceToHost, stream));
  BAM_CUDA_TRY(cudaStreamSynchronize(stream));
  if (first >= n) return n;
  BAM_CUDA_TRY(cudaMemcpyAsync(bad_value, index + first, sizeof *bad_value, cudaMemcpyDeviceToHost, stream));
  BAM_CUDA_TRY(cudaStreamSynchronize(stream));
  return first;
}

void gather(const mapped_array::view& a, const std::int64_t* index, std::uint64_t n, std::uint64_t row, void* out,
            stream_handle stream) {
  if (n == 0) return;
  std::visit(
      [&](const auto& v) {
        using T = element_of<decltype(v)>;
        if (v.elems_per_page() % row == 0 && row * sizeof(T) >= 128)
          launch(gather_by_page_pins<T>, n, stream, v, index, n, row, static_cast<T*>(out));
        else if (row * sizeof(T) >= 128)
          launch(gather_by_warp<T>, n * 32, stream, v, index, n, row, static_cast<T*>(out));
        else
          launch(gather_by_element<T>, n * row, stream, v, index, n, row, static_cast<T*>(out));
      },
      a);
}

void read(const mapped_array::view& a, std::uint64_t first, std::uint64_t n, void* out, stream_handle stream) {
  if (n == 0) return;
  std::visit(
      [&](const auto& v) {
        using T = element_of<decltype(v)>;
        const std::uint64_t pages = n / v.elems_per_page() + 2;
        launch(read_by_page<T>, pages * 32, stream, v, first, n, static_cast<T*>(out));
      },
      a);
}

void write(const mapped_array::view& a, const std::int64_t* index, std::uint64_t n, std::uint64_t row,
           const void* values, stream_handle stream) {
  if (n == 0) return;
  std::visit(
      [&](const auto& v) {
        using T = element_of<decltype(v)>;
        launch(write_by_element<T>, n * row, stream, v, index, n, row, static_cast<const T*>(values));
      },
      a);
}

void scatter_add(const mapped_array::view& a, const std::int64_t* index, std::uint64_t n, std::uint64_t row,
                 const void* values, stream_handle stream) {
  if (n == 0) return;
  std::visit(
      [&](const auto& v) {
        using T = element_of<decltype(v)>;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>)
          launch(add_by_element<T>, n * row, stream, v, index, n, row, static_cast<const T*>(values));
        else
          throw invalid_argument("scatter_add: takes float32, int32 or int64 arrays");
      },
      a);
}

}  // namespace bam::python::gpu
