// SPDX-License-Identifier: Apache-2.0
// The parts of the real-controller bindings that need no NVMe device: IOVA allocation, bus
// address coalescing, chunk carving and release in pinned_memory (over a fake mapper), PCI
// addresses; on CUDA builds with a GPU, chunks registered with CUDA and VRAM allocations.
#include "host/drivers/pci_function.hpp"
#include <bam/error.hpp>
#include <bam/host/memory/pinned_memory.hpp>
#include <bam/host/memory/vfio_memory.hpp>

#include <gtest/gtest.h>

#if BAM_WITH_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace {

using bam::host::bus_mapping;
using bam::host::coalesce_bus_pages;
using bam::host::iova_allocator;

TEST(IovaAllocator, AlignsSkipsTheFloorAndReusesFreedSpace) {
  iova_allocator a({{0, (1ull << 30) - 1}});
  EXPECT_EQ(a.free_bytes(), (1ull << 30) - (1ull << 20));
  const auto x = a.allocate(4096, 4096);
  ASSERT_TRUE(x);
  EXPECT_EQ(*x, 1ull << 20);
  const auto y = a.allocate(2 << 20, 2 << 20);
  ASSERT_TRUE(y);
  EXPECT_EQ(*y % (2 << 20), 0u);
  EXPECT_GT(*y, *x);
  a.free(*x, 4096);
  a.free(*y, 2 << 20);
  EXPECT_EQ(a.free_bytes(), (1ull << 30) - (1ull << 20));  // merged back
  EXPECT_EQ(*a.allocate(8192, 4096), 1ull << 20);
}

TEST(IovaAllocator, HonoursHolesAndRunsOut) {
  // Two ranges around a hole (the x86 MSI window, say).
  iova_allocator a({{0x100000, 0x1fffff}, {0x400000, 0x5fffff}});
  const auto x = a.allocate(0x100000, 0x100000);
  const auto y = a.allocate(0x100000, 0x100000);
  ASSERT_TRUE(x && y);
  EXPECT_EQ(*x, 0x100000u);
  EXPECT_EQ(*y, 0x400000u);
  EXPECT_FALSE(a.allocate(0x200000, 0x1000));  // only 1 MiB runs are left
  EXPECT_TRUE(a.allocate(0x100000, 0x1000));
  EXPECT_FALSE(a.allocate(0x1000, 0x1000));
}

TEST(CoalesceBusPages, OneEntryRunsOrPages) {
  const bus_mapping one = coalesce_bus_pages({0x10000, 0x11000, 0x12000, 0x13000}, 4096, 8192);
  EXPECT_EQ(one.pages, std::vector<std::uint64_t>{0x10000});
  EXPECT_EQ(one.page_bytes, 4u * 4096);
  const bus_mapping runs = coalesce_bus_pages({0x10000, 0x11000, 0x80000, 0x81000}, 4096, 8192);
  EXPECT_EQ(runs.pages, (std::vector<std::uint64_t>{0x10000, 0x80000}));
  EXPECT_EQ(runs.page_bytes, 8192u);
  const bus_mapping pages = coalesce_bus_pages({0x10000, 0x30000, 0x31000, 0x90000}, 4096, 8192);
  EXPECT_EQ(pages.pages.size(), 4u);
  EXPECT_EQ(pages.page_bytes, 4096u);
  EXPECT_TRUE(coalesce_bus_pages({}, 4096, 4096).pages.empty());
}

/// Hands out fake bus addresses: contiguous (like an IOMMU) or each page at a scattered spot.
class fake_mapper final : public bam::host::dma_mapper {
 public:
  explicit fake_mapper(bool scatter) : scatter_(scatter) {}
  std::string_view name() const noexcept override { return "fake"; }
  bus_mapping map_host(std::byte*, std::size_t bytes, std::size_t page_bytes) override {
    ++mapped;
    const std::uint64_t base = next_;
    next_ += bytes * 4;
    if (!scatter_) return bus_mapping{{base}, bytes, [this] { ++unmapped; }};
    std::vector<std::uint64_t> pages;
    for (std::size_t i = 0; i < bytes / page_bytes; ++i)
      pages.push_back(base + (bytes / page_bytes - i) * 2 * page_bytes);
    return bus_mapping{pages, page_bytes, [this] { ++unmapped; }};
  }
  int mapped = 0;
  int unmapped = 0;

 private:
  bool scatter_;
  std::uint64_t next_ = 0x100000000;
};

bam::host::pinned_memory_options small_chunks() { return {bam::host::page_policy::small, 64 * 1024}; }

TEST(PinnedMemory, CarvesZeroedPageAlignedBuffersFromSharedChunks) {
  auto mapper = std::make_shared<fake_mapper>(false);
  bam::host::pinned_memory mem(mapper, small_chunks());
  auto a = mem.allocate(100, bam::memory_kind::host);
  auto b = mem.allocate(8192, bam::memory_kind::host);
  EXPECT_EQ(mapper->mapped, 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.host()) % 4096, 0u);
  EXPECT_EQ(b.host(), a.host() + 4096);
  EXPECT_EQ(b.bus_at(0), a.bus_at(0) + 4096);
  EXPECT_GE(b.bus_contiguous_from(0), b.size());
  for (std::size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b.host()[i], std::byte{0});
#if !BAM_WITH_CUDA_RUNTIME
  EXPECT_EQ(a.device(), a.host());  // CPU threads stand in for the GPU
#endif
  auto big = mem.allocate(256 * 1024, bam::memory_kind::host);  // a chunk of its own
  EXPECT_EQ(mapper->mapped, 2);
  big = bam::dma_buffer();
  EXPECT_EQ(mapper->unmapped, 1);
}

TEST(PinnedMemory, ChunksAreUnmappedWhenTheirLastBufferGoes) {
  auto mapper = std::make_shared<fake_mapper>(false);
  {
    bam::host::pinned_memory mem(mapper, small_chunks());
    std::vector<bam::dma_buffer> bufs;
    for (int i = 0; i < 40; ++i) bufs.push_back(mem.allocate(8192, bam::memory_kind::host));  // 5 chunks of 8
    EXPECT_EQ(mapper->mapped, 5);
    bufs.erase(bufs.begin(), bufs.begin() + 8);
    EXPECT_EQ(mapper->unmapped, 1);
    bufs.clear();
    EXPECT_EQ(mapper->unmapped, 4);  // the open chunk stays with the resource
  }
  EXPECT_EQ(mapper->unmapped, 5);
}

TEST(PinnedMemory, ScatteredPagesGetPerPageBusAddresses) {
  auto mapper = std::make_shared<fake_mapper>(true);
  bam::host::pinned_memory mem(mapper, small_chunks());
  auto a = mem.allocate(4096, bam::memory_kind::host);
  auto b = mem.allocate(3 * 4096, bam::memory_kind::host);
  EXPECT_GE(a.bus_contiguous_from(0), a.size());  // one page is always contiguous
  EXPECT_EQ(b.bus_contiguous_from(0), 4096u);
  EXPECT_EQ(b.bus_contiguous_from(4096 + 100), 4096u - 100);
  EXPECT_EQ(b.bus_at(4096 + 100) % 4096, 100u);
  EXPECT_NE(b.bus_at(4096), b.bus_at(0) + 4096);
}

TEST(PinnedMemory, HonoursAlignmentAndRejectsBadRequests) {
  auto mapper = std::make_shared<fake_mapper>(false);
  bam::host::pinned_memory mem(mapper, small_chunks());
  auto a = mem.allocate(4096, bam::memory_kind::host);
  auto b = mem.allocate(4096, bam::memory_kind::host, 32768);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.host()) % 32768, 0u);
  EXPECT_THROW((void)mem.allocate(0, bam::memory_kind::host), bam::invalid_argument);
  EXPECT_THROW((void)mem.allocate(4096, bam::memory_kind::host, 3000), bam::invalid_argument);
}

TEST(PinnedMemory, ThreadsAllocatingAtOnceGetDisjointBuffers) {
  auto mapper = std::make_shared<fake_mapper>(false);
  bam::host::pinned_memory mem(mapper, small_chunks());
  std::vector<std::vector<bam::dma_buffer>> per_thread(4);
  std::vector<std::thread> threads;
  for (auto& mine : per_thread)
    threads.emplace_back([&mem, &mine] {
      for (int i = 0; i < 50; ++i) mine.push_back(mem.allocate(4096, bam::memory_kind::host));
    });
  for (auto& t : threads) t.join();
  std::set<std::uint64_t> bus;
  for (const auto& mine : per_thread)
    for (const auto& b : mine) EXPECT_TRUE(bus.insert(b.bus_at(0)).second);
  EXPECT_EQ(bus.size(), 200u);
}

#if BAM_WITH_CUDA_RUNTIME
TEST(PinnedMemory, ChunksAreRegisteredWithCudaAndDeviceMemoryIsVram) {
  if (!bam::host::gpu_memory_available()) GTEST_SKIP() << "no GPU";
  auto mapper = std::make_shared<fake_mapper>(false);
  bam::host::pinned_memory mem(mapper, small_chunks());
  ASSERT_TRUE(mem.has_device_memory());
  auto h = mem.allocate(8192, bam::memory_kind::host);
  ASSERT_NE(h.device(), nullptr);
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, h.host()), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeHost);
  EXPECT_EQ(attr.devicePointer, static_cast<void*>(h.device()));
  // The GPU's copy engine reads what the CPU wrote, through the device address.
  std::memset(h.host(), 0x5a, 8192);
  std::vector<unsigned char> copy(8192);
  ASSERT_EQ(cudaMemcpy(copy.data(), h.device(), copy.size(), cudaMemcpyDefault), cudaSuccess);
  for (const unsigned char c : copy) ASSERT_EQ(c, 0x5a);

  auto d = mem.allocate(100'000, bam::memory_kind::device, 65536);
  EXPECT_EQ(d.host(), nullptr);
  ASSERT_NE(d.device(), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(d.device()) % 65536, 0u);
  EXPECT_FALSE(d.bus_reachable());  // this mapper (like VFIO and uio) cannot map VRAM
  ASSERT_EQ(cudaPointerGetAttributes(&attr, d.device()), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeDevice);
  std::vector<unsigned char> zeros(100'000, 1);
  ASSERT_EQ(cudaMemcpy(zeros.data(), d.device(), zeros.size(), cudaMemcpyDefault), cudaSuccess);
  for (const unsigned char c : zeros) ASSERT_EQ(c, 0);
}
#endif

TEST(PciFunction, CanonicalAddresses) {
  EXPECT_EQ(bam::host::canonical_bdf("0000:01:00.0"), "0000:01:00.0");
  EXPECT_EQ(bam::host::canonical_bdf("3B:00.1"), "0000:3b:00.1");
  EXPECT_THROW((void)bam::host::canonical_bdf("01:00"), bam::invalid_argument);
  EXPECT_THROW((void)bam::host::canonical_bdf("0000:01:00.8"), bam::invalid_argument);
  EXPECT_THROW((void)bam::host::canonical_bdf("/dev/bam0"), bam::invalid_argument);
}

}  // namespace
