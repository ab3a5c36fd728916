// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/gpu/graph_storage.hpp"

#include "apps/graph/error.hpp"

#include <bam/error.hpp>
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/file_store.hpp>
#include <bam/host/emulator/ram_store.hpp>

#if BAM_WITH_CUDA_RUNTIME
#include <bam/host/memory/cuda_buffer.hpp>
#include <bam/host/memory/cuda_memory.hpp>
#endif

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

namespace bam::graph::gpu {

namespace {

/// The sections read through the cache: the neighbors, then the weights of a weighted graph.
std::vector<apps::file_section> edge_sections(const csr_file& file) {
  const csr_header& h = file.header();
  return visit_view(file, [&](const auto& g) {
    std::vector<apps::file_section> s{{"neighbors", h.neighbors_offset, std::as_bytes(g.neighbors)}};
    if (h.weighted()) s.push_back({"weights", h.weights_offset, std::as_bytes(g.weights)});
    return s;
  });
}

template <class Id>
void require_width(const csr_file& file) {
  if (file.header().id_bytes != sizeof(Id)) {
    throw graph_error(file.path().string() + ": the graph has " + std::to_string(file.header().id_bytes) +
                      "-byte ids, not " + std::to_string(sizeof(Id)));
  }
}

#if BAM_WITH_CUDA_RUNTIME
/// A graph section in memory kernels read (VRAM, pinned or managed).
using gpu_block = host::cuda_buffer<std::byte>;

host::cuda_allocation allocation_of(placement kind) {
  switch (kind) {
    case placement::vram: return host::cuda_allocation::vram;
    case placement::pinned: return host::cuda_allocation::pinned;
    case placement::managed: return host::cuda_allocation::managed;
    case placement::host: break;
  }
  throw bam::invalid_argument("resident_graph: host memory is the file mapping, not a GPU allocation");
}

/// Copies `bytes` into new memory of `kind` (cudaMemcpy: pinned and managed pages are written
/// by the copy engine or the CPU, and managed pages migrate to the GPU when kernels touch them).
gpu_block copy_to(std::span<const std::byte> bytes, placement kind) {
  gpu_block block(bytes.size(), allocation_of(kind));
  block.upload(bytes);
  return block;
}
#endif

}  // namespace

const char* to_string(placement p) {
  switch (p) {
    case placement::vram: return "vram";
    case placement::pinned: return "pinned";
    case placement::managed: return "managed";
    case placement::host: return "host";
  }
  return "?";
}

// ---- cached_graph -----------------------------------------------------------------------------

struct cached_graph::device_offsets {
  const std::uint64_t* ptr = nullptr;  ///< VRAM copy (GPU) or the file mapping (CPU)
#if BAM_WITH_CUDA_RUNTIME
  gpu_block vram;
#endif
};

cached_graph::cached_graph(const csr_file& file, const apps::storage_options& o)
    : file_(file),
      storage_(std::make_unique<apps::cached_file>(file.path(), edge_sections(file), o)),
      offsets_(std::make_unique<device_offsets>()) {
  const csr_header& h = file.header();
  if (h.id_bytes == 4) neighbors32_ = storage_->map<std::uint32_t>(0);
  else neighbors64_ = storage_->map<std::uint64_t>(0);
  if (h.weighted()) weights_ = storage_->map<weight_t>(1);

  const auto offsets = visit_view(file, [](const auto& g) { return g.offsets; });
#if BAM_WITH_CUDA_RUNTIME
  if (o.gpu) {
    offsets_->vram = copy_to(std::as_bytes(offsets), placement::vram);
    offsets_->ptr = reinterpret_cast<const std::uint64_t*>(offsets_->vram.data());
    return;
  }
#endif
  offsets_->ptr = offsets.data();
}

cached_graph::~cached_graph() = default;

std::uint64_t cached_graph::edge_bytes() const {
  const csr_header& h = file_.header();
  return h.num_edges * (h.id_bytes + h.weight_bytes);
}

template <class Id>
cached_graph_view<Id> cached_graph::view() const {
  require_width<Id>(file_);
  const array<Id>* n = nullptr;
  if constexpr (sizeof(Id) == 4) n = &*neighbors32_;
  else n = &*neighbors64_;
  const csr_header& h = file_.header();
  // Unweighted: an empty view (never read: weighted() is false).
  const array<weight_t> w = weights_ ? *weights_ : array<weight_t>(n->cache(), n->range_id(), 0, nullptr);
  return {offsets_->ptr, h.num_vertices, h.num_edges, cached_edges<Id>(*n), cached_edges<weight_t>(w), h.symmetric()};
}

template cached_graph_view<std::uint32_t> cached_graph::view<std::uint32_t>() const;
template cached_graph_view<std::uint64_t> cached_graph::view<std::uint64_t>() const;

// ---- resident_graph ---------------------------------------------------------------------------

struct resident_graph::buffers {
  const void* offsets = nullptr;
  const void* neighbors = nullptr;
  const void* weights = nullptr;
#if BAM_WITH_CUDA_RUNTIME
  gpu_block offsets_vram, neighbors_mem, weights_mem;
#endif
};

resident_graph::resident_graph(const csr_file& file, placement where)
    : file_(file), where_(where), b_(std::make_unique<buffers>()) {
  visit_view(file, [&](const auto& g) {
    if (where == placement::host) {
      b_->offsets = g.offsets.data();
      b_->neighbors = g.neighbors.data();
      b_->weights = g.weights.data();
      return;
    }
#if BAM_WITH_CUDA_RUNTIME
    BAM_EXPECTS(host::cuda_device_present(),
                std::string("resident_graph: placement ") + to_string(where) + " needs a CUDA device");
    b_->offsets_vram = copy_to(std::as_bytes(g.offsets), placement::vram);
    b_->neighbors_mem = copy_to(std::as_bytes(g.neighbors), where);
    b_->weights_mem = copy_to(std::as_bytes(g.weights), where);
    b_->offsets = b_->offsets_vram.data();
    b_->neighbors = b_->neighbors_mem.data();
    b_->weights = b_->weights_mem.data();
#else
    throw bam::invalid_argument(std::string("resident_graph: placement ") + to_string(where) +
                                " needs a CUDA build");
#endif
  });
}

resident_graph::~resident_graph() = default;

template <class Id>
pointer_graph_view<Id> resident_graph::view() const {
  require_width<Id>(file_);
  const csr_header& h = file_.header();
  return {static_cast<const std::uint64_t*>(b_->offsets),
          h.num_vertices,
          h.num_edges,
          pointer_edges<Id>(static_cast<const Id*>(b_->neighbors), h.num_edges),
          pointer_edges<weight_t>(static_cast<const weight_t*>(b_->weights), h.weighted() ? h.num_edges : 0),
          h.symmetric()};
}

template pointer_graph_view<std::uint32_t> resident_graph::view<std::uint32_t>() const;
template pointer_graph_view<std::uint64_t> resident_graph::view<std::uint64_t>() const;

}  // namespace bam::graph::gpu
