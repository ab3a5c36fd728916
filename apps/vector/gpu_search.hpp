// SPDX-License-Identifier: Apache-2.0
// bam::vec::gpu: the GPU entry points, callable from plain C++ (no CUDA types in the signatures): k-means
// and assignment engines for build_ivf, the IVF searcher and exact search. The vectors a
// search scans are a list_source: a VRAM copy, or a bam::array over the page cache.
// Available when BAM_WITH_CUDA_RUNTIME is set.
#pragma once

#include "apps/vector/ivf_build.hpp"
#include "apps/vector/ivf_index.hpp"
#include "apps/vector/scalar.hpp"
#include "apps/vector/search.hpp"

#include <bam/array.hpp>
#include <bam/host/memory/cuda_buffer.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <variant>

namespace bam::vec::gpu {

/// k-means steps (cuBLAS GEMM + argmin + CUB sort and per-cluster sums) and assignment on the
/// current GPU.
[[nodiscard]] build_engines engines();

/// Vectors copied into VRAM (move-only owner).
class vram_vectors {
 public:
  /// Copies `bytes` (rows x dim elements of `scalar`) into VRAM.
  vram_vectors(std::span<const std::byte> bytes, scalar_type scalar, std::uint64_t rows, std::uint32_t dim);
  /// The vector section of an index.
  explicit vram_vectors(const ivf_index& index);
  /// A float matrix.
  explicit vram_vectors(const matrix<float>& m);

  [[nodiscard]] const void* data() const { return data_.data(); }
  [[nodiscard]] scalar_type scalar() const { return scalar_; }
  [[nodiscard]] std::uint64_t rows() const { return rows_; }
  [[nodiscard]] std::uint32_t dim() const { return dim_; }

 private:
  host::cuda_buffer<std::byte> data_;
  scalar_type scalar_ = scalar_type::f32;
  std::uint64_t rows_ = 0;
  std::uint32_t dim_ = 0;
};

/// Where a GPU search reads vectors (rows x dim elements, row-major): VRAM, or bam.
using list_source = std::variant<const vram_vectors*, array<float>, array<half>, array<std::uint8_t>>;

/// The element type a source holds.
[[nodiscard]] scalar_type scalar_of_source(const list_source& s);

/// Timing of one batch, reported after it completes (queries copied in and results out).
struct batch_report {
  std::uint64_t index = 0, first_query = 0, queries = 0;
  double seconds = 0;
  double upload_seconds = 0;  ///< of which copying the queries in (IVF only)
  double scan_seconds = 0;    ///< of which the list scan kernel (IVF only; GPU events)
};
using batch_fn = std::function<void(const batch_report&)>;

/// Largest vector dimension the GPU kernels take (shared memory holds 8 queries, a tile and
/// their top-k at any k; 16 queries where they fit).
inline constexpr std::uint32_t max_gpu_dim = 2048;

/**
 * @brief IVF search on the GPU. Owns the coarse quantizer (centroids and norms), list offsets
 * and ids in VRAM; the vectors stay in the list_source.
 *
 * A batch: coarse scores by GEMM, the nprobe nearest lists per query, (query, list) pairs
 * grouped by list (counting sort: CUB scans), work items of one list and up to 16 queries that
 * blocks take from a counter, each prefetching the list's pages and scanning it through the
 * source with warp-cooperative read_range into shared memory (each list is read once per 16
 * queries), per-pair top-k, then a merge to k per query.
 */
class ivf_searcher {
 public:
  explicit ivf_searcher(const ivf_index& index);
  ~ivf_searcher();
  ivf_searcher(const ivf_searcher&) = delete;
  ivf_searcher& operator=(const ivf_searcher&) = delete;

  /**
   * @param batch queries per batch (0: as many as fit a 1 GiB working set)
   * @param on_batch called after each batch (may be empty)
   * @throw bam::invalid_argument for a bad request; bam::cuda_error on CUDA failures. Errors
   * of a bam::array source are recorded in its page_cache (call check()).
   */
  search_results search(const matrix<float>& queries, const search_options& o, const list_source& src,
                        std::uint64_t batch = 0, const batch_fn& on_batch = {});

 private:
  struct state;
  const ivf_index& index_;
  std::unique_ptr<state> s_;
};

/**
 * @brief Exact search on the GPU: tiles of rows from the source are converted to float in VRAM
 * and scored by GEMM; a running top-k per query is merged tile by tile.
 * @param ids the id of each row (VRAM copy made here), or empty for row numbers
 * @param what names the collection in errors
 */
search_results exact_search(const list_source& src, std::uint64_t rows, std::uint32_t dim, metric m,
                            std::span<const std::int64_t> ids, const matrix<float>& queries, std::uint32_t k,
                            const std::string& what, std::uint64_t batch = 0, const batch_fn& on_batch = {});

}  // namespace bam::vec::gpu
