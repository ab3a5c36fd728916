// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/bam_store.hpp"

#include <bam/error.hpp>
#include <bam/host/emulator/file_store.hpp>
#include <bam/host/emulator/ram_store.hpp>

#include <algorithm>

namespace bam::vec {

namespace {

/**
 * The namespace: the index file itself, or a RAM copy with the same LBAs. The vector section's
 * last cache page must lie inside it: a RAM namespace is sized to hold it whole (zeros past the
 * file); a file namespace refuses pages that would end past the end of the file.
 */
std::shared_ptr<host::namespace_store> make_namespace(const ivf_index& index, bool ram, std::size_t page_bytes) {
  const auto& sec = index.header().vectors;
  const std::uint64_t file_blocks = index.header().file_bytes / bam_store::block_bytes;
  const std::uint64_t pages = (sec.bytes + page_bytes - 1) / page_bytes;
  const std::uint64_t needed = (sec.offset + pages * page_bytes + bam_store::block_bytes - 1) / bam_store::block_bytes;
  const std::uint64_t blocks = std::max(file_blocks, needed);
  if (!ram) {
    BAM_EXPECTS(needed <= file_blocks, index.path() + ": with " + std::to_string(page_bytes) +
                                           "-byte pages the vector section's last page ends " +
                                           std::to_string((needed - file_blocks) * bam_store::block_bytes) +
                                           " bytes past the end of the file; serve a RAM copy or use smaller pages");
    host::file_store::options fo;
    fo.path = index.path();
    fo.block_size = bam_store::block_bytes;
    fo.n_blocks = blocks;
    fo.create = false;
    return std::make_shared<host::file_store>(fo);
  }
  auto ns = std::make_shared<host::ram_store>(bam_store::block_bytes, blocks);
  const std::uint64_t first = sec.offset / bam_store::block_bytes;  // the rest stays zero
  const std::uint64_t chunk_blocks = 1 << 14;  // 8 MiB per write
  for (std::uint64_t b = 0; b * bam_store::block_bytes < sec.bytes; b += chunk_blocks) {
    const std::uint64_t left = (sec.bytes + bam_store::block_bytes - 1) / bam_store::block_bytes - b;
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

bam_store::bam_store(const ivf_index& index, const bam_store_options& o) : index_(index) {
  BAM_EXPECTS(o.page_bytes >= block_bytes && o.page_bytes % block_bytes == 0,
              "bam_store: the page size must be a whole number of 512-byte blocks, got " + std::to_string(o.page_bytes));
  host::emulated_system_options so;
  so.controllers = {{make_namespace(index, o.ram, o.page_bytes)}};
  so.workers_per_controller = o.workers;
  so.queue_pairs = o.queues;
  so.queue_depth = o.depth;
  so.use_gpu = o.gpu;
  so.emulator.idle_spin_ns = o.idle_spin_ns;
  system_ = std::make_unique<host::emulated_system>(so);
  BAM_EXPECTS(system_->on_gpu() == o.gpu, "bam_store: GPU-driven queues asked for, but no GPU is present");
  page_cache_options po;
  po.page_bytes = o.page_bytes;
  po.cache_bytes = std::max(o.cache_bytes, o.page_bytes * 64);
  po.timeout = std::chrono::milliseconds(60'000);
  cache_ = std::make_unique<page_cache>(system_->controllers(), system_->memory(), po);
}

bam_store::~bam_store() = default;

}  // namespace bam::vec
