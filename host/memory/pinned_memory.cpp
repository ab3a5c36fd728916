// SPDX-License-Identifier: Apache-2.0
#include <bam/host/memory/pinned_memory.hpp>

#include <bam/error.hpp>

#include <algorithm>
#include <string>
#include <utility>

namespace bam::host {

namespace {

constexpr std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

}  // namespace

bus_mapping coalesce_bus_pages(std::vector<std::uint64_t> units, std::size_t unit_bytes, std::size_t run_bytes) {
  auto contiguous = [&](std::size_t first, std::size_t n) {
    for (std::size_t i = 1; i < n; ++i)
      if (units[first + i] != units[first] + i * unit_bytes) return false;
    return true;
  };
  if (units.empty()) return {};
  if (contiguous(0, units.size())) return bus_mapping{{units[0]}, units.size() * unit_bytes, {}};
  const std::size_t per_run = run_bytes / unit_bytes;
  bool runs = per_run > 1 && units.size() % per_run == 0;
  for (std::size_t r = 0; runs && r < units.size(); r += per_run) runs = contiguous(r, per_run);
  if (!runs) return bus_mapping{std::move(units), unit_bytes, {}};
  std::vector<std::uint64_t> out;
  for (std::size_t r = 0; r < units.size(); r += per_run) out.push_back(units[r]);
  return bus_mapping{std::move(out), run_bytes, {}};
}

bus_mapping dma_mapper::map_device(std::byte*, std::size_t) { return {}; }

/// Locked pages, their GPU registration and their bus mapping; destroyed in reverse order.
struct pinned_memory::chunk {
  std::shared_ptr<dma_mapper> mapper;  ///< kept alive for bus.unmap
  locked_pages pages;
  gpu_host_mapping gpu;
  bus_mapping bus;

  chunk(std::shared_ptr<dma_mapper> m, locked_pages p, gpu_host_mapping g, bus_mapping b)
      : mapper(std::move(m)), pages(std::move(p)), gpu(std::move(g)), bus(std::move(b)) {}
  chunk(const chunk&) = delete;
  chunk& operator=(const chunk&) = delete;
  ~chunk() {
    if (bus.unmap) bus.unmap();
  }

  /// Bus addresses of [offset, offset + bytes): one entry when contiguous, else per page.
  [[nodiscard]] std::pair<std::vector<std::uint64_t>, std::size_t> slice(std::size_t offset, std::size_t bytes) const {
    const std::size_t rounded = round_up(bytes, small_page_bytes);
    if (bus.pages.size() == 1) return {{bus.pages[0] + offset}, rounded};
    const std::size_t step = offset % bus.page_bytes == 0 ? bus.page_bytes : small_page_bytes;
    std::vector<std::uint64_t> out;
    for (std::size_t o = offset; o < offset + bytes; o += step)
      out.push_back(bus.pages[o / bus.page_bytes] + o % bus.page_bytes);
    for (std::size_t i = 1; i < out.size(); ++i)
      if (out[i] != out[0] + i * step) return {std::move(out), step};
    return {{out[0]}, rounded};
  }
};

pinned_memory::pinned_memory(std::shared_ptr<dma_mapper> mapper, pinned_memory_options options)
    : mapper_(std::move(mapper)), options_(options) {
  BAM_EXPECTS(mapper_ != nullptr, "pinned_memory: no dma_mapper");
  BAM_EXPECTS(options_.chunk_bytes >= small_page_bytes && options_.chunk_bytes % small_page_bytes == 0,
              "pinned_memory: chunk_bytes must be a multiple of 4096, got " + std::to_string(options_.chunk_bytes));
}

pinned_memory::~pinned_memory() = default;

bool pinned_memory::has_device_memory() const noexcept { return gpu_memory_available(); }

std::shared_ptr<pinned_memory::chunk> pinned_memory::make_chunk(std::size_t bytes) {
  locked_pages pages(bytes, options_.pages);
  gpu_host_mapping gpu(pages.data(), pages.size(), false);
  bus_mapping bus = mapper_->map_host(pages.data(), pages.size(), pages.page_bytes());
  return std::make_shared<chunk>(mapper_, std::move(pages), std::move(gpu), std::move(bus));
}

dma_buffer pinned_memory::allocate(std::size_t bytes, memory_kind kind, std::size_t alignment) {
  BAM_EXPECTS(bytes > 0, "pinned_memory::allocate: zero bytes requested");
  BAM_EXPECTS(
      alignment > 0 && (alignment & (alignment - 1)) == 0 && alignment <= hugepage_bytes,
      "pinned_memory::allocate: alignment must be a power of two of at most 2 MiB, got " + std::to_string(alignment));
  if (kind == memory_kind::device && has_device_memory()) return allocate_device(bytes, alignment);
  alignment = std::max(alignment, small_page_bytes);

  std::shared_ptr<chunk> c;
  std::size_t offset = 0;
  if (bytes > options_.chunk_bytes / 2) {
    c = make_chunk(bytes);  // large: a chunk of its own
  } else {
    const std::lock_guard lock(mutex_);
    auto fits = [&] {
      if (!open_) return false;
      const auto base = reinterpret_cast<std::uintptr_t>(open_->pages.data());
      offset = round_up(base + open_used_, alignment) - base;
      return offset + bytes <= open_->pages.size();
    };
    if (!fits()) {
      open_ = make_chunk(options_.chunk_bytes);
      open_used_ = 0;
      if (!fits())
        throw invalid_argument("pinned_memory::allocate: alignment " + std::to_string(alignment) +
                               " cannot be met inside a chunk");
    }
    c = open_;
    open_used_ = round_up(offset + bytes, small_page_bytes);
  }
  // Carved memory was zeroed when the chunk was made and is never handed out twice.
  std::byte* host = c->pages.data() + offset;
  std::byte* device = c->gpu.device() != nullptr ? c->gpu.device() + offset : nullptr;
  auto [bus_pages, bus_page_bytes] = c->slice(offset, bytes);
  return dma_buffer(dma_span{host, device, bytes}, std::move(bus_pages), bus_page_bytes,
                    [c](dma_span) mutable { c.reset(); });
}

dma_buffer pinned_memory::allocate_device(std::size_t bytes, std::size_t alignment) {
  /// VRAM and its bus mapping; unmapped before it is freed.
  struct vram_allocation {
    std::shared_ptr<dma_mapper> mapper;
    vram_block vram;
    bus_mapping bus;
    vram_allocation(std::shared_ptr<dma_mapper> m, vram_block v) : mapper(std::move(m)), vram(std::move(v)) {}
    vram_allocation(const vram_allocation&) = delete;
    vram_allocation& operator=(const vram_allocation&) = delete;
    ~vram_allocation() {
      if (bus.unmap) bus.unmap();
      vram.release();
    }
  };
  const std::size_t granule = mapper_->device_alignment();
  const std::size_t rounded = round_up(bytes, granule);
  auto a = std::make_shared<vram_allocation>(mapper_, allocate_vram(rounded, std::max(alignment, granule)));
  a->bus = mapper_->map_device(a->vram.device, rounded);
  const std::size_t page = a->bus.pages.size() == 1 ? rounded : a->bus.page_bytes;
  return dma_buffer(dma_span{nullptr, a->vram.device, bytes}, a->bus.pages, page, [a](dma_span) mutable { a.reset(); });
}

}  // namespace bam::host
