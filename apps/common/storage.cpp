// SPDX-License-Identifier: Apache-2.0
#include "apps/common/storage.hpp"

#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/file_store.hpp>
#include <bam/host/emulator/ram_store.hpp>

#include <bam/error.hpp>

#include <algorithm>
#include <chrono>

namespace bam::apps {

namespace {

constexpr std::uint64_t block_bytes = cached_file::block_bytes;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

/// Blocks a section takes in the namespace: whole pages, so its last page lies inside it.
std::uint64_t section_blocks(const file_section& s, std::size_t page_bytes) {
  return ceil_div(s.bytes.size(), page_bytes) * (page_bytes / block_bytes);
}

/// Writes `bytes` from `lba` on, the last block padded with zeros, in 8 MiB writes.
void write_section(host::namespace_store& ns, std::uint64_t lba, std::span<const std::byte> bytes) {
  constexpr std::uint64_t chunk = std::uint64_t{8} << 20;
  std::vector<std::byte> buf(std::min<std::uint64_t>(chunk, ceil_div(bytes.size(), block_bytes) * block_bytes));
  for (std::uint64_t done = 0; done < bytes.size(); done += chunk) {
    const std::uint64_t n = std::min<std::uint64_t>(chunk, bytes.size() - done);
    std::copy_n(bytes.data() + done, n, buf.data());
    const std::uint64_t padded = ceil_div(n, block_bytes) * block_bytes;
    std::fill(buf.data() + n, buf.data() + padded, std::byte{0});
    ns.write(lba + done / block_bytes, std::uint32_t(padded / block_bytes), buf.data());
  }
}

/// Namespace 1 and the sections' first LBAs. RAM: the sections one after another, each on a page
/// boundary and padded to whole pages. File: the file, LBA = offset / block_bytes, and as many
/// blocks past its end (read as zeros) as the last page of a section needs.
std::shared_ptr<host::namespace_store> make_namespace(const std::filesystem::path& path,
                                                      const std::vector<file_section>& sections,
                                                      const storage_options& o, std::vector<std::uint64_t>& lbas) {
  lbas.clear();
  std::uint64_t blocks = 0;
  if (o.backend == storage_backend::ram) {
    for (const auto& s : sections) {
      lbas.push_back(blocks);
      blocks += section_blocks(s, o.page_bytes);
    }
    auto ns = std::make_shared<host::ram_store>(std::uint32_t(block_bytes), std::max<std::uint64_t>(blocks, 1));
    for (std::size_t i = 0; i < sections.size(); ++i) write_section(*ns, lbas[i], sections[i].bytes);
    return ns;
  }
  for (const auto& s : sections) {
    BAM_EXPECTS(s.offset % block_bytes == 0, path.string() + ": section " + s.name + " starts at byte " +
                                                 std::to_string(s.offset) + ", not on a " +
                                                 std::to_string(block_bytes) + "-byte block boundary");
    lbas.push_back(s.offset / block_bytes);
    blocks = std::max(blocks, lbas.back() + section_blocks(s, o.page_bytes));
  }
  host::file_store::options fo;
  fo.path = path.string();
  fo.block_size = std::uint32_t(block_bytes);
  fo.n_blocks = std::max(blocks, ceil_div(std::filesystem::file_size(path), block_bytes));
  fo.zero_past_end = true;
  return std::make_shared<host::file_store>(fo);
}

}  // namespace

const char* to_string(storage_backend b) {
  switch (b) {
    case storage_backend::ram: return "ram";
    case storage_backend::file: return "file";
  }
  return "?";
}

cached_file::cached_file(const std::filesystem::path& path, std::vector<file_section> sections,
                         const storage_options& o)
    : sections_(std::move(sections)) {
  BAM_EXPECTS(o.page_bytes >= block_bytes && o.page_bytes % block_bytes == 0,
              "the page size must be a whole number of " + std::to_string(block_bytes) + "-byte blocks, not " +
                  std::to_string(o.page_bytes));
  BAM_EXPECTS(o.cache_bytes > 0, "the cache size must be above zero");
  BAM_EXPECTS(o.queues >= 1 && o.depth >= 2, "at least one queue pair of two entries is needed, not " +
                                                 std::to_string(o.queues) + " of " + std::to_string(o.depth));
  cache_bytes_ = std::max(ceil_div(o.cache_bytes, o.page_bytes), min_cache_pages) * o.page_bytes;
  const std::uint64_t entries = std::max<std::uint64_t>(max_frame_bytes / o.page_bytes, 2);
  const auto depth = std::uint32_t(std::clamp<std::uint64_t>(entries / o.queues, 2, o.depth));
  host::emulated_system_options so;
  so.controllers = {{make_namespace(path, sections_, o, lbas_)}};
  so.workers_per_controller = o.workers ? o.workers : (o.gpu ? 8 : 1);
  so.queue_pairs = std::uint32_t(std::clamp<std::uint64_t>(entries / depth, 1, o.queues));
  so.queue_depth = depth;
  so.use_gpu = o.gpu;
  so.emulator = o.emulator;
  system_ = std::make_unique<host::emulated_system>(so);
  BAM_EXPECTS(system_->on_gpu() == o.gpu, "GPU-driven queues were asked for, but no GPU is present");
  page_cache_options po;
  po.page_bytes = o.page_bytes;
  po.cache_bytes = cache_bytes_;
  po.timeout = std::chrono::milliseconds(60'000);
  cache_ = std::make_unique<page_cache>(system_->controllers(), system_->memory(), po);
}

cached_file::~cached_file() = default;

const file_section& cached_file::section(std::size_t i, std::size_t elem_bytes) const {
  BAM_EXPECTS(i < sections_.size(), "section " + std::to_string(i) + " of " + std::to_string(sections_.size()));
  const file_section& s = sections_[i];
  BAM_EXPECTS(s.bytes.size() % elem_bytes == 0, "section " + s.name + " holds " + std::to_string(s.bytes.size()) +
                                                    " bytes, not a whole number of " + std::to_string(elem_bytes) +
                                                    "-byte elements");
  return s;
}

}  // namespace bam::apps
