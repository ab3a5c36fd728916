// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/bam_store.hpp"

#include "host/file_store.hpp"
#include "host/ram_store.hpp"

#include <algorithm>

namespace bam::vec {

namespace {

/// The namespace: the index file itself, or a RAM copy with the same LBAs.
std::shared_ptr<host::namespace_store> make_namespace(const ivf_index& index, bool ram) {
  const std::uint64_t blocks = index.header().file_bytes / bam_store::block_bytes;
  if (!ram) {
    host::file_store::options fo;
    fo.path = index.path();
    fo.block_size = bam_store::block_bytes;
    fo.n_blocks = blocks;
    fo.create = false;
    return std::make_shared<host::file_store>(fo);
  }
  auto ns = std::make_shared<host::ram_store>(bam_store::block_bytes, blocks);
  const auto& h = index.header();
  const std::uint64_t first = h.vectors.offset / bam_store::block_bytes;
  const std::uint64_t chunk_blocks = 1 << 14;  // 8 MiB per write
  for (std::uint64_t b = 0; b * bam_store::block_bytes < h.vectors.bytes; b += chunk_blocks) {
    const std::uint64_t left = (h.vectors.bytes + bam_store::block_bytes - 1) / bam_store::block_bytes - b;
    const auto n = std::uint32_t(std::min(chunk_blocks, left));
    const auto bytes = index.vectors().subspan(b * bam_store::block_bytes);
    std::vector<std::byte> buf(std::size_t(n) * bam_store::block_bytes);
    std::copy_n(bytes.begin(), std::min(buf.size(), bytes.size()), buf.begin());
    const std::span<const std::byte> seg(buf);
    ns->writev(first + b, n, {&seg, 1});
  }
  return ns;
}

}  // namespace

bam_store::bam_store(const ivf_index& index, memory_resource& memory, const bam_store_options& o) : index_(index) {
  dma_ = std::make_unique<host::iommu_memory>(memory, iommu_);
  host::emulated_controller::options eo;
  eo.n_workers = o.workers;
  eo.max_io_queues = std::uint16_t(std::min<std::uint32_t>(o.queues, 65535));
  eo.idle_spin_ns = o.idle_spin_ns;
  emu_ = std::make_unique<host::emulated_controller>(memory, iommu_,
                                                     std::vector{make_namespace(index, o.ram)}, eo);
  host::controller_options co;
  co.io_queue_pairs = o.queues;
  co.queue_depth = o.depth;
  co.driver = o.gpu ? host::io_driver::gpu : host::io_driver::cpu;
  ctrl_ = std::make_unique<host::controller>(emu_->bar(), *dma_, co);
  page_cache_options po;
  po.page_bytes = o.page_bytes;
  po.cache_bytes = std::max(o.cache_bytes, o.page_bytes * 64);
  po.timeout = std::chrono::milliseconds(60'000);
  cache_ = std::make_unique<page_cache>(std::vector<host::controller*>{ctrl_.get()}, *dma_, po);
}

bam_store::~bam_store() = default;

}  // namespace bam::vec
