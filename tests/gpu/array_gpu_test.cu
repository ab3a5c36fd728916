// SPDX-License-Identifier: Apache-2.0
// bam::array from GPU kernels over the emulated controller: a 1 TiB synthetic namespace read at
// random with every value verified, writes flushed and checked through the namespace, pinned
// pages that stay intact under eviction pressure, fetch_add across warps, and errors reported
// to the host. Skips itself without a GPU.
#include <bam/detail/cuda_try.hpp>
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/host/memory/cuda_buffer.hpp>
#include <bam/host/memory/cuda_memory.hpp>
#include <bam/page_cache.hpp>
#include <bam/synthetic.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace {

using bam::array;

struct counts {
  unsigned long long reads, wrong;
};

__device__ std::uint64_t mix(std::uint64_t x) { return bam::synthetic_word(0xa11, x); }

__global__ void random_reads(array<std::uint64_t> a, std::uint64_t seed, std::uint64_t first_word, unsigned per_thread,
                             counts* c) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  unsigned long long wrong = 0;
  for (unsigned k = 0; k < per_thread; ++k) {
    const std::uint64_t i = mix(tid * per_thread + k) % a.size();
    wrong += a[i] != bam::synthetic_word(seed, first_word + i);
  }
  atomicAdd(&c->reads, (unsigned long long)per_thread);
  if (wrong) atomicAdd(&c->wrong, wrong);
}

__global__ void write_pattern(array<std::uint32_t> a) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < a.size(); i += stride)
    a.store(i, std::uint32_t(i * 2654435761u));
}

/// Warps 0..pinners-1 pin one page each and re-read it while the other warps thrash the cache.
__global__ void pinned_under_pressure(array<std::uint64_t> a, std::uint64_t seed, unsigned pinners, counts* c) {
  const std::uint64_t warp = (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / 32;
  bam::warp_group g;
  unsigned long long wrong = 0, failed = 0;
  if (warp < pinners) {
    const auto p = a.pin_page(g, warp * a.elems_per_page() * 7);
    if (!p.ok()) {
      failed = 1;
    } else {
      for (int round = 0; round < 200; ++round) {
        for (std::uint64_t j = g.rank(); j < p.size(); j += 32) wrong += p[j] != bam::synthetic_word(seed, p.first() + j);
        __nanosleep(1000);
      }
    }
  } else {
    const std::uint64_t lane = warp * 32 + threadIdx.x % 32;
    for (unsigned k = 0; k < 64; ++k) {  // ~1 M distinct pages: far more than the cache's slots
      const std::uint64_t i = mix(lane * 64 + k) % a.size();
      wrong += a[i] != bam::synthetic_word(seed, i);
    }
  }
  if (wrong) atomicAdd(&c->wrong, wrong);
  if (failed) atomicAdd(&c->reads, failed);
}

__global__ void count_up(array<unsigned long long> a, unsigned per_thread) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  for (unsigned k = 0; k < per_thread; ++k) a.fetch_add(mix(tid * per_thread + k) % a.size(), 1ull);
}

__global__ void read_out_of_range(array<std::uint32_t> a, unsigned* sink) {
  *sink = a[a.size() + threadIdx.x];
}

class ArrayGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!bam::host::cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
  static bam::host::emulated_system_options system(std::shared_ptr<bam::host::namespace_store> ns) {
    bam::host::emulated_system_options o;
    o.controllers = {{std::move(ns)}};
    o.workers_per_controller = 8;
    o.queue_pairs = 32;
    o.queue_depth = 256;
    return o;
  }
  static bam::host::cuda_buffer<counts> make_counts() {
    bam::host::cuda_buffer<counts> c(1);
    c.zero();
    return c;
  }
  static counts read_counts(const bam::host::cuda_buffer<counts>& c) {
    counts h{};
    BAM_CUDA_TRY(cudaDeviceSynchronize());
    c.download({&h, 1});
    return h;
  }
  static unsigned sms() {
    int n = 0;
    BAM_CUDA_TRY(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0));
    return unsigned(n);
  }
};

}  // namespace

TEST_F(ArrayGpu, ATerabyteArrayReadAtRandomReturnsEveryValueCorrectly) {
  constexpr std::uint64_t seed = 1234;
  auto ns = std::make_shared<bam::host::synthetic_store>(
      bam::host::synthetic_store::options{512, (1ull << 40) / 512, seed, 1});
  bam::host::emulated_system sys(system(ns));
  bam::page_cache_options co;
  co.cache_bytes = 256u << 20;
  bam::page_cache cache(sys.controllers(), sys.memory(), co);
  const auto a = cache.map<std::uint64_t>({.name = "tebibyte", .nsid = 1, .start_lba = 0, .count = (1ull << 40) / 8});
  const auto c = make_counts();
  const unsigned grid = sms() * 8, block = 256;  // 270 k threads
  random_reads<<<grid, block>>>(a, seed, 0, 8, c.data());
  BAM_CUDA_TRY(cudaGetLastError());
  const counts h = read_counts(c);
  EXPECT_EQ(h.reads, std::uint64_t(grid) * block * 8);
  EXPECT_EQ(h.wrong, 0u);
  EXPECT_NO_THROW(cache.check());
  const auto s = cache.stats(0);
  EXPECT_EQ(s.counts.accesses, h.reads);
  EXPECT_GT(s.counts.misses, h.reads / 2) << "random over 1 TiB: nearly every access misses";
  EXPECT_GT(s.counts.evictions, 0u);
  std::printf("%s", cache.stats_table().c_str());
}

TEST_F(ArrayGpu, StoresReachTheNamespaceAfterFlush) {
  auto ram = std::make_shared<bam::host::ram_store>(512, (64u << 20) / 512);
  bam::host::emulated_system sys(system(ram));
  bam::page_cache_options co;
  co.cache_bytes = 4u << 20;  // a quarter of the array: evictions write back too
  bam::page_cache cache(sys.controllers(), sys.memory(), co);
  const auto a = cache.map<std::uint32_t>({.name = "pattern", .nsid = 1, .start_lba = 0, .count = (16u << 20) / 4});
  write_pattern<<<sms() * 4, 256>>>(a);
  BAM_CUDA_TRY(cudaGetLastError());
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  cache.flush();
  EXPECT_GT(cache.stats(0).counts.write_backs, 0u);
  std::vector<std::uint32_t> raw(a.size());
  ram->read(0, std::uint32_t(raw.size() * 4 / 512), reinterpret_cast<std::byte*>(raw.data()));
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < raw.size(); ++i) wrong += raw[i] != std::uint32_t(i * 2654435761u);
  EXPECT_EQ(wrong, 0u);
}

TEST_F(ArrayGpu, APinnedPageNeverChangesWhileOtherWarpsEvict) {
  constexpr std::uint64_t seed = 99;
  auto ns = std::make_shared<bam::host::synthetic_store>(bam::host::synthetic_store::options{512, 1u << 24, seed, 1});
  bam::host::emulated_system sys(system(ns));
  bam::page_cache_options co;
  co.cache_bytes = 32768 * 4096;  // more slots than the 17 k lanes below can pin at once
  bam::page_cache cache(sys.controllers(), sys.memory(), co);
  const auto a = cache.map<std::uint64_t>(
      {.name = "words", .nsid = 1, .start_lba = 0, .count = (1ull << 24) * 512 / 8});
  const auto c = make_counts();
  pinned_under_pressure<<<sms(), 128>>>(a, seed, 64, c.data());
  BAM_CUDA_TRY(cudaGetLastError());
  const counts h = read_counts(c);
  EXPECT_EQ(h.wrong, 0u);
  EXPECT_EQ(h.reads, 0u) << "pins that failed";
  EXPECT_NO_THROW(cache.check());
  EXPECT_GT(cache.stats(0).counts.evictions, 0u);
}

TEST_F(ArrayGpu, FetchAddsFromEveryWarpAllCount) {
  auto ram = std::make_shared<bam::host::ram_store>(512, (8u << 20) / 512);
  bam::host::emulated_system sys(system(ram));
  bam::page_cache_options co;
  co.cache_bytes = 8u << 20;  // every page of the array can be pinned at once (see page_cache_options)
  bam::page_cache cache(sys.controllers(), sys.memory(), co);
  const auto a = cache.map<unsigned long long>(
      {.name = "counters", .nsid = 1, .start_lba = 0, .count = (4u << 20) / 8});
  const unsigned grid = sms() * 2, block = 256, per = 16;
  count_up<<<grid, block>>>(a, per);
  BAM_CUDA_TRY(cudaGetLastError());
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  cache.flush();
  std::vector<unsigned long long> raw(a.size());
  ram->read(0, std::uint32_t(raw.size() * 8 / 512), reinterpret_cast<std::byte*>(raw.data()));
  unsigned long long sum = 0;
  for (auto v : raw) sum += v;
  EXPECT_EQ(sum, std::uint64_t(grid) * block * per);
}

TEST_F(ArrayGpu, SanitizeSmallReadsWritesAndAnOutOfRangeIndex) {
  auto ram = std::make_shared<bam::host::ram_store>(512, 1u << 14);
  bam::host::emulated_system_options o = system(ram);
  o.queue_pairs = 4;
  o.queue_depth = 64;  // above 32: a warp reserves its reads together
  o.workers_per_controller = 2;
  bam::host::emulated_system sys(o);
  bam::page_cache_options co;
  co.cache_bytes = 64 * 4096;
  bam::page_cache cache(sys.controllers(), sys.memory(), co);
  const auto a = cache.map<std::uint32_t>({.name = "small", .nsid = 1, .start_lba = 0, .count = 100'000});
  write_pattern<<<8, 128>>>(a);
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  cache.flush();
  const bam::host::cuda_buffer<unsigned> sink(1);
  read_out_of_range<<<1, 32>>>(a, sink.data());
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  try {
    cache.check();
    FAIL() << "expected an out-of-range report";
  } catch (const bam::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'small'"), std::string::npos) << e.what();
  }
  std::vector<std::uint32_t> raw(100'000 + 128);
  ram->read(0, std::uint32_t(raw.size() * 4 / 512), reinterpret_cast<std::byte*>(raw.data()));
  for (std::uint64_t i = 0; i < 100'000; ++i) ASSERT_EQ(raw[i], std::uint32_t(i * 2654435761u)) << i;
}
