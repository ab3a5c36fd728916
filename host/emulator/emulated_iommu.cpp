// SPDX-License-Identifier: Apache-2.0
#include <bam/host/emulator/emulated_iommu.hpp>

#include <bam/error.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bam::host {

namespace {
constexpr std::uint64_t page_mask = emulated_iommu::page_bytes - 1;
constexpr std::uint64_t bus_limit = std::uint64_t{1} << emulated_iommu::address_bits;
/// IOVAs start above the first TiB so that small integers and host-like values never translate.
constexpr std::uint64_t first_iova = std::uint64_t{1} << 40;

std::string hex(std::uint64_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}
}  // namespace

emulated_iommu::emulated_iommu() : root_(new table), next_iova_(first_iova) {}

emulated_iommu::~emulated_iommu() { free_table(root_, 0); }

void emulated_iommu::free_table(table* t, unsigned level) noexcept {
  if (level + 1 < levels) {
    for (auto& e : t->entry) {
      if (auto child = e.load(std::memory_order_relaxed)) {
        free_table(reinterpret_cast<table*>(child), level + 1);
      }
    }
  }
  delete t;
}

unsigned emulated_iommu::index_at(std::uint64_t page, unsigned level) noexcept {
  return unsigned(page >> (bits_per_level * (levels - 1 - level))) & (entries_per_table - 1);
}

std::atomic<std::uintptr_t>* emulated_iommu::leaf(std::uint64_t page, bool create) const {
  table* t = root_;
  for (unsigned level = 0; level + 1 < levels; ++level) {
    auto& e = t->entry[index_at(page, level)];
    std::uintptr_t child = e.load(std::memory_order_acquire);
    if (child == 0) {
      if (!create) return nullptr;
      child = reinterpret_cast<std::uintptr_t>(new table);
      // Release: the zeroed child table is visible to any translation that sees this entry.
      e.store(child, std::memory_order_release);
    }
    t = reinterpret_cast<table*>(child);
  }
  return &t->entry[index_at(page, levels - 1)];
}

void emulated_iommu::map(std::uint64_t bus, std::byte* host, std::size_t bytes) {
  BAM_EXPECTS(host != nullptr, "emulated_iommu::map: null host address for bus " + hex(bus));
  BAM_EXPECTS(((bus | bytes) & page_mask) == 0 && bytes > 0,
              "emulated_iommu::map: bus " + hex(bus) + " size " + std::to_string(bytes) +
                  " is not a non-empty run of whole 4 KiB pages");
  BAM_EXPECTS(bus < bus_limit && bytes <= bus_limit - bus,
              "emulated_iommu::map: bus range at " + hex(bus) + " passes the 48-bit bus space");
  const std::uint64_t first = bus / page_bytes;
  const std::uint64_t n = bytes / page_bytes;
  std::lock_guard lock(mutex_);
  for (std::uint64_t p = 0; p < n; ++p) {
    const auto* e = leaf(first + p, false);
    BAM_EXPECTS(e == nullptr || e->load(std::memory_order_relaxed) == 0,
                "emulated_iommu::map: bus page " + hex((first + p) * page_bytes) +
                    " is already mapped");
  }
  for (std::uint64_t p = 0; p < n; ++p) {
    // Release: a translation that sees the leaf also sees the table path to it.
    leaf(first + p, true)->store(reinterpret_cast<std::uintptr_t>(host + p * page_bytes),
                                 std::memory_order_release);
  }
  mapped_pages_.fetch_add(n, std::memory_order_relaxed);
}

void emulated_iommu::unmap(std::uint64_t bus, std::size_t bytes) {
  const std::uint64_t first = bus / page_bytes;
  const std::uint64_t last = (bus + bytes + page_mask) / page_bytes;
  std::size_t cleared = 0;
  std::lock_guard lock(mutex_);
  for (std::uint64_t p = first; p < last && p < bus_limit / page_bytes; ++p) {
    if (auto* e = leaf(p, false); e != nullptr && e->exchange(0, std::memory_order_release) != 0) {
      ++cleared;
    }
  }
  mapped_pages_.fetch_sub(cleared, std::memory_order_relaxed);
}

std::byte* emulated_iommu::translate(std::uint64_t bus, std::size_t bytes) const noexcept {
  if (bus >= bus_limit || bytes == 0 || bytes > bus_limit - bus) return nullptr;
  std::byte* start = nullptr;
  const std::uint64_t first = bus / page_bytes;
  const std::uint64_t last = (bus + bytes - 1) / page_bytes;
  for (std::uint64_t p = first; p <= last; ++p) {
    const table* t = root_;
    for (unsigned level = 0; level + 1 < levels && t != nullptr; ++level) {
      t = reinterpret_cast<const table*>(
          t->entry[index_at(p, level)].load(std::memory_order_acquire));
    }
    if (t == nullptr) return nullptr;
    auto* page = reinterpret_cast<std::byte*>(
        t->entry[index_at(p, levels - 1)].load(std::memory_order_acquire));
    if (page == nullptr) return nullptr;
    if (p == first) {
      start = page + (bus & page_mask);
    } else if (page != start - (bus & page_mask) + (p - first) * page_bytes) {
      return nullptr;  // mapped, but not host-contiguous with the previous page
    }
  }
  return start;
}

std::uint64_t emulated_iommu::allocate_iova(std::size_t bytes, std::size_t alignment) {
  alignment = std::max(alignment, page_bytes);
  BAM_EXPECTS((alignment & (alignment - 1)) == 0,
              "emulated_iommu::allocate_iova: alignment must be a power of two, got " +
                  std::to_string(alignment));
  const std::uint64_t rounded = (bytes + page_mask) & ~page_mask;
  std::lock_guard lock(mutex_);
  const std::uint64_t base = (next_iova_ + alignment - 1) & ~std::uint64_t(alignment - 1);
  if (base >= bus_limit || rounded + page_bytes > bus_limit - base) {
    throw error("emulated_iommu::allocate_iova: bus address space exhausted by a request for " +
                std::to_string(bytes) + " bytes");
  }
  next_iova_ = base + rounded + page_bytes;  // one unmapped guard page after each range
  return base;
}

dma_buffer iommu_memory::allocate(std::size_t bytes, memory_kind kind, std::size_t alignment) {
  constexpr std::size_t page = emulated_iommu::page_bytes;
  const std::size_t rounded = (bytes + page - 1) / page * page;
  auto inner = std::make_shared<dma_buffer>(
      inner_.allocate(rounded, kind, std::max(alignment, page)));
  if (inner->host() == nullptr || !inner->bus_reachable()) return std::move(*inner);

  // The bus runs to map: one for a fresh IOVA, the inner buffer's own runs otherwise.
  std::vector<std::pair<std::uint64_t, std::size_t>> runs;  // (bus, offset)
  std::size_t run_bytes = rounded;
  if (addressing_ == bus_addressing::fresh_iova) {
    runs.emplace_back(iommu_.allocate_iova(rounded, alignment), 0);
  } else {
    run_bytes = std::min(rounded, inner->bus_contiguous_from(0));
    BAM_EXPECTS(run_bytes % page == 0,
                "iommu_memory::allocate: inner bus pages of " + std::to_string(run_bytes) +
                    " bytes are not whole IOMMU pages");
    for (std::size_t off = 0; off < rounded; off += run_bytes) {
      runs.emplace_back(inner->bus_at(off), off);
    }
  }

  std::size_t mapped = 0;
  try {
    for (const auto& [bus, off] : runs) {
      iommu_.map(bus, inner->host() + off, std::min(run_bytes, rounded - off));
      ++mapped;
    }
  } catch (...) {
    for (std::size_t i = 0; i < mapped; ++i) {
      iommu_.unmap(runs[i].first, std::min(run_bytes, rounded - runs[i].second));
    }
    throw;
  }

  std::vector<std::uint64_t> bus_pages;
  bus_pages.reserve(runs.size());
  for (const auto& run : runs) bus_pages.push_back(run.first);
  auto& iommu = iommu_;
  return dma_buffer(dma_span{inner->host(), inner->device(), bytes}, std::move(bus_pages),
                    run_bytes, [inner, runs, run_bytes, rounded, &iommu](dma_span) {
                      for (const auto& [bus, off] : runs) {
                        iommu.unmap(bus, std::min(run_bytes, rounded - off));
                      }
                      // `inner` releases the memory when the last copy of this closure goes.
                    });
}

}  // namespace bam::host
