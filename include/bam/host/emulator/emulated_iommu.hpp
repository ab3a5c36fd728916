// SPDX-License-Identifier: Apache-2.0
// bam::host::emulated_iommu: the bus-address → host-pointer translation an emulated controller
// applies to every queue and PRP address, and iommu_memory, the memory_resource adaptor that
// registers each allocation with it. A DMA to an address nobody registered fails cleanly.
#pragma once

#include <bam/memory.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace bam::host {

/**
 * @brief A 4-level radix page table from 48-bit bus addresses to host addresses, 4 KiB pages.
 *
 * Like a hardware IOMMU page table: 9 bits of the page number per level, 512 entries per
 * table, leaves holding the host address of the page. Translation is four dependent loads
 * and takes no lock; map/unmap serialise on a mutex. Tables are created on demand and freed
 * only by the destructor, so a translation racing with an unmap never reads freed memory.
 */
class emulated_iommu {
 public:
  /// Translation granularity.
  static constexpr std::size_t page_bytes = 4096;
  /// Bus addresses at or above 2^address_bits never translate.
  static constexpr unsigned address_bits = 48;

  emulated_iommu();
  ~emulated_iommu();
  emulated_iommu(const emulated_iommu&) = delete;
  emulated_iommu& operator=(const emulated_iommu&) = delete;

  /**
   * @brief Maps bus range [bus, bus + bytes) to host range [host, host + bytes).
   * @note Thread-safe. Each leaf is published with a release store.
   * @throw bam::invalid_argument if `bus` or `bytes` is not page aligned, the range passes
   *        2^address_bits, `host` is null, or any page of the range is already mapped (then
   *        nothing is mapped).
   */
  void map(std::uint64_t bus, std::byte* host, std::size_t bytes);

  /**
   * @brief Unmaps bus range [bus, bus + bytes); unmapped pages are skipped.
   * @note Thread-safe. A translation that already returned a pointer keeps it (like an IOTLB
   *       entry): the caller must not free memory that a command may still be using.
   */
  void unmap(std::uint64_t bus, std::size_t bytes);

  /**
   * @brief Host address of bus range [bus, bus + bytes), or nullptr when any byte of it is
   *        unmapped or the range is not host-contiguous.
   * @note Lock-free and wait-free: acquire loads of up to four table entries per page.
   */
  [[nodiscard]] std::byte* translate(std::uint64_t bus, std::size_t bytes = 1) const noexcept;

  /**
   * @brief Reserves a fresh bus range of `bytes` aligned to `alignment`, followed by an
   *        unmapped guard page. Ranges are never handed out twice.
   * @note Thread-safe.
   * @throw bam::error when the bus address space is exhausted.
   */
  [[nodiscard]] std::uint64_t allocate_iova(std::size_t bytes, std::size_t alignment);

  /** @brief Number of pages mapped now. */
  [[nodiscard]] std::size_t mapped_pages() const noexcept {
    return mapped_pages_.load(std::memory_order_relaxed);
  }

 private:
  static constexpr unsigned levels = 4;
  static constexpr unsigned bits_per_level = 9;
  static constexpr std::size_t entries_per_table = std::size_t{1} << bits_per_level;

  /// One level of the table: entries are child-table addresses (inner levels) or host page
  /// addresses (leaves); 0 means absent.
  struct table {
    std::array<std::atomic<std::uintptr_t>, entries_per_table> entry{};
  };

  [[nodiscard]] static unsigned index_at(std::uint64_t page, unsigned level) noexcept;
  /// The leaf entry of `page`, creating tables on the way when `create`; nullptr if absent.
  /// Callers that create hold `mutex_`.
  [[nodiscard]] std::atomic<std::uintptr_t>* leaf(std::uint64_t page, bool create) const;
  static void free_table(table* t, unsigned level) noexcept;

  table* root_;
  std::mutex mutex_;  ///< serialises map/unmap/allocate_iova; never taken by translate
  std::uint64_t next_iova_;
  std::atomic<std::size_t> mapped_pages_{0};
};

/// Which bus addresses iommu_memory hands out.
enum class bus_addressing {
  fresh_iova,  ///< a fresh IOVA range per allocation, unrelated to the host address (catches
               ///< drivers that pass host pointers where bus addresses belong)
  inner,       ///< the wrapped resource's own bus addresses (identity for heap_memory)
};

/**
 * @brief A memory_resource that registers every host-reachable allocation of another resource
 *        with an emulated IOMMU, and unregisters it when the buffer is released.
 *
 * Allocations are rounded up to whole IOMMU pages and aligned to at least one page, so no two
 * allocations share a page. Allocations without a host address (VRAM) pass through unmapped:
 * the emulated controller cannot reach them.
 */
class iommu_memory final : public memory_resource {
 public:
  /** @brief Wraps `inner`; both `inner` and `iommu` must outlive every buffer handed out. */
  iommu_memory(memory_resource& inner, emulated_iommu& iommu,
               bus_addressing addressing = bus_addressing::fresh_iova) noexcept
      : inner_(inner), iommu_(iommu), addressing_(addressing) {}

  /**
   * @brief Allocates from the wrapped resource and maps the buffer's bus range.
   * @throw bam::invalid_argument if the inner resource's bus pages are not page aligned.
   */
  [[nodiscard]] dma_buffer allocate(std::size_t bytes, memory_kind kind,
                                    std::size_t alignment = 4096) override;
  [[nodiscard]] bool has_device_memory() const noexcept override {
    return inner_.has_device_memory();
  }

 private:
  memory_resource& inner_;
  emulated_iommu& iommu_;
  bus_addressing addressing_;
};

}  // namespace bam::host
