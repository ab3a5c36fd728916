// SPDX-License-Identifier: Apache-2.0
// The emulated IOMMU's page table and the memory_resource adaptor that registers allocations.
#include <bam/error.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/memory/heap_memory.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {
using bam::host::emulated_iommu;
constexpr std::size_t page = emulated_iommu::page_bytes;

TEST(EmulatedIommu, TranslatesMappedPagesOnly) {
  emulated_iommu iommu;
  std::vector<std::byte> mem(3 * page);
  const std::uint64_t bus = 0x7000'0000'0000ull;
  iommu.map(bus, mem.data(), 3 * page);
  EXPECT_EQ(iommu.mapped_pages(), 3u);
  EXPECT_EQ(iommu.translate(bus), mem.data());
  EXPECT_EQ(iommu.translate(bus + page + 17, 64), mem.data() + page + 17);
  EXPECT_EQ(iommu.translate(bus + 100, 3 * page - 100), mem.data() + 100);
  EXPECT_EQ(iommu.translate(bus + 100, 3 * page), nullptr);  // runs past the mapping
  EXPECT_EQ(iommu.translate(bus - 1), nullptr);
  EXPECT_EQ(iommu.translate(0), nullptr);
  EXPECT_EQ(iommu.translate(~std::uint64_t{0} - 8), nullptr);  // beyond 48 bits
  iommu.unmap(bus + page, page);
  EXPECT_EQ(iommu.translate(bus + page), nullptr);
  EXPECT_EQ(iommu.translate(bus, 2 * page), nullptr);
  EXPECT_EQ(iommu.translate(bus + 2 * page), mem.data() + 2 * page);
  EXPECT_EQ(iommu.mapped_pages(), 2u);
}

TEST(EmulatedIommu, RejectsMisalignedAndOverlappingMaps) {
  emulated_iommu iommu;
  std::vector<std::byte> mem(2 * page);
  EXPECT_THROW(iommu.map(page + 8, mem.data(), page), bam::invalid_argument);
  EXPECT_THROW(iommu.map(page, mem.data(), 100), bam::invalid_argument);
  EXPECT_THROW(iommu.map(1ull << 48, mem.data(), page), bam::invalid_argument);
  iommu.map(2 * page, mem.data(), page);
  EXPECT_THROW(iommu.map(page, mem.data(), 2 * page), bam::invalid_argument);
  EXPECT_EQ(iommu.translate(page), nullptr);  // the failed map left nothing behind
  EXPECT_EQ(iommu.mapped_pages(), 1u);
}

TEST(EmulatedIommu, DiscontiguousHostPagesDoNotTranslateAsOneRange) {
  emulated_iommu iommu;
  std::vector<std::byte> mem(2 * page);
  iommu.map(16 * page, mem.data() + page, page);  // bus order is the reverse of host order
  iommu.map(17 * page, mem.data(), page);
  EXPECT_EQ(iommu.translate(16 * page, page), mem.data() + page);
  EXPECT_EQ(iommu.translate(17 * page, page), mem.data());
  EXPECT_EQ(iommu.translate(16 * page, 2 * page), nullptr);
}

TEST(IommuMemory, FreshIovasAreMappedWhileTheBufferLives) {
  bam::host::heap_memory heap;
  emulated_iommu iommu;
  bam::host::iommu_memory dma(heap, iommu);
  std::uint64_t bus = 0;
  {
    bam::dma_buffer buf = dma.allocate(10000, bam::memory_kind::host);
    ASSERT_TRUE(buf.bus_reachable());
    bus = buf.bus_at(0);
    EXPECT_NE(bus, reinterpret_cast<std::uint64_t>(buf.host()));
    EXPECT_EQ(bus % page, 0u);
    EXPECT_EQ(iommu.translate(buf.bus_at(9999)), buf.host() + 9999);
    EXPECT_EQ(iommu.translate(bus, 3 * page), buf.host());  // rounded up to whole pages
    EXPECT_EQ(iommu.translate(bus + 3 * page), nullptr);    // guard page
    bam::dma_buffer other = dma.allocate(1, bam::memory_kind::host);
    EXPECT_GE(other.bus_at(0), bus + 4 * page);
  }
  EXPECT_EQ(iommu.translate(bus), nullptr);
  EXPECT_EQ(iommu.mapped_pages(), 0u);
}

TEST(IommuMemory, InnerAddressingMapsTheInnerBusAddresses) {
  bam::host::heap_memory heap;
  emulated_iommu iommu;
  bam::host::iommu_memory dma(heap, iommu, bam::host::bus_addressing::inner);
  bam::dma_buffer buf = dma.allocate(page, bam::memory_kind::host);
  EXPECT_EQ(buf.bus_at(0), reinterpret_cast<std::uint64_t>(buf.host()));  // heap: identity
  EXPECT_EQ(iommu.translate(buf.bus_at(100)), buf.host() + 100);
}

TEST(EmulatedIommu, TranslationsRaceWithMapsAndUnmaps) {
  emulated_iommu iommu;
  constexpr int n_pages = 64;
  std::vector<std::byte> mem(n_pages * page);
  const std::uint64_t base = 1ull << 44;
  iommu.map(base, mem.data(), page);  // page 0 stays mapped throughout
  std::atomic<bool> stop{false};
  std::atomic<long> wrong{0};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      for (int p = 0; p < n_pages; ++p) {
        std::byte* h = iommu.translate(base + p * page + 8);
        if (h != nullptr && h != mem.data() + p * page + 8) wrong.fetch_add(1);
        if (p == 0 && h == nullptr) wrong.fetch_add(1);
      }
    }
  });
  for (int round = 0; round < 200; ++round) {
    for (int p = 1; p < n_pages; ++p) iommu.map(base + p * page, mem.data() + p * page, page);
    iommu.unmap(base + page, (n_pages - 1) * page);
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
