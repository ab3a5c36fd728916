// SPDX-License-Identifier: Apache-2.0
// Owners that put an opened CSR file where the kernels read it, and hand out graph views:
// cached_graph (the neighbor and weight sections on an emulated NVMe namespace behind a
// bam::page_cache) and resident_graph (the sections copied into VRAM, pinned host memory or
// managed memory, or left in the file mapping for CPU threads).
#pragma once

#include "apps/graph/csr_file.hpp"
#include "apps/graph/gpu/graph_view.hpp"
#include "apps/graph/gpu/runners.hpp"

#include "apps/common/storage.hpp"

#include <bam/page_cache.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace bam::graph::gpu {

/**
 * @brief The graph's neighbors (and weights) read through bam: the neighbor and weight sections
 * behind apps::cached_file (a RAM copy or the file itself, any page size the cache accepts),
 * mapped as bam::array. Offsets are copied to VRAM (GPU) or read from the mapping (CPU); the
 * kernels run on the GPU when `o.gpu`, else on CPU threads.
 */
class cached_graph {
 public:
  /**
   * @param file must outlive this object
   * @throw bam::invalid_argument for bad options or `o.gpu` without a GPU
   */
  cached_graph(const csr_file& file, const apps::storage_options& o);
  ~cached_graph();
  cached_graph(const cached_graph&) = delete;
  cached_graph& operator=(const cached_graph&) = delete;

  /// @throw graph_error when Id is not the file's id width
  template <class Id>
  [[nodiscard]] cached_graph_view<Id> view() const;

  [[nodiscard]] page_cache& cache() { return storage_->cache(); }
  [[nodiscard]] host::emulated_system& system() { return storage_->system(); }
  /// Slot memory of the cache (whole pages, at least apps::min_cache_pages).
  [[nodiscard]] std::uint64_t cache_bytes() const { return storage_->cache_bytes(); }
  /// Bytes of the neighbor section plus the weight section (what a full pass reads).
  [[nodiscard]] std::uint64_t edge_bytes() const;

 private:
  struct device_offsets;
  const csr_file& file_;
  std::unique_ptr<apps::cached_file> storage_;
  std::unique_ptr<device_offsets> offsets_;
  std::optional<array<std::uint32_t>> neighbors32_;  ///< mapped when the file has 4-byte ids
  std::optional<array<std::uint64_t>> neighbors64_;  ///< mapped when the file has 8-byte ids
  std::optional<array<weight_t>> weights_;           ///< mapped when the file is weighted
};

/// Where resident_graph keeps the neighbor and weight sections.
enum class placement {
  vram,     ///< (b) cudaMalloc
  pinned,   ///< (c) pinned host memory (cudaHostAlloc), read by kernels zero-copy over PCIe
  managed,  ///< (d) cudaMallocManaged (Unified Memory, migrated on demand)
  host,     ///< the file mapping itself, for CPU threads
};

/// "vram", "pinned", "managed", "host".
[[nodiscard]] const char* to_string(placement p);

/**
 * @brief The graph held whole in one kind of memory; offsets in VRAM for the GPU placements.
 * @note GPU placements need a CUDA build and a GPU (bam::error otherwise).
 */
class resident_graph {
 public:
  /// @param file must outlive this object (placement::host reads its mapping)
  resident_graph(const csr_file& file, placement where);
  ~resident_graph();
  resident_graph(const resident_graph&) = delete;
  resident_graph& operator=(const resident_graph&) = delete;

  template <class Id>
  [[nodiscard]] pointer_graph_view<Id> view() const;
  [[nodiscard]] placement where() const { return where_; }

 private:
  struct buffers;
  const csr_file& file_;
  placement where_;
  std::unique_ptr<buffers> b_;
};

}  // namespace bam::graph::gpu
