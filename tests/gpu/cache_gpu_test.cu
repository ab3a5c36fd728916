// SPDX-License-Identifier: Apache-2.0
// GPU tests of the cache protocol: real warps (warp_group) read and write random pages of a
// device-memory store through a cache far smaller than the data; every read is verified, and
// the store is checked after a flush. Skips without a GPU.
#include "cache/cache_ref.hpp"
#include "tests/cache/fake_backend.hpp"

#include <bam/gpu/warp_group.cuh>
#include <bam/host/memory/cuda_buffer.hpp>

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

// GoogleTest's TEST() declares a registration member nvcc reports as unreferenced.
#pragma nv_diag_suppress 177

namespace bam::test {
namespace {

using cache::page_key;

constexpr std::size_t page_bytes = 512;
constexpr std::size_t words_per_page = page_bytes / 8;

/// A backend over one range held in device memory: a straight copy each way.
struct device_store_backend {
  std::byte* store;  ///< n_pages * page_bytes bytes
  BAM_HD status read_page(const cache::page_io& io) const {
    cuda::std::memcpy(io.data.data(), store + io.key.page * page_bytes, page_bytes);
    return status::ok;
  }
  BAM_HD status write_page(const cache::page_io& io) const {
    cuda::std::memcpy(store + io.key.page * page_bytes, io.data.data(), page_bytes);
    return status::ok;
  }
};
static_assert(cache::backend<device_store_backend>);

using gpu_cache = cache::cache_ref<device_store_backend>;
static_assert(std::is_trivially_copyable_v<gpu_cache>);

/// Zeroed managed-memory array that the test reads and writes from the host too.
template <class T>
class managed : public bam::host::cuda_buffer<T> {
 public:
  explicit managed(std::size_t n) : bam::host::cuda_buffer<T>(n, bam::host::cuda_allocation::managed) {
    std::memset(static_cast<void*>(this->data()), 0, this->bytes());
  }
  cuda::std::span<T> span() const { return {this->data(), this->size()}; }
  T& operator[](std::size_t i) const { return this->data()[i]; }
};

/// Owner of a one-range cache in managed memory.
struct gpu_cache_owner {
  gpu_cache_owner(std::uint32_t n_slots, std::uint64_t n_pages)
      : states(n_slots), tags(n_slots), data(std::size_t{n_slots} * page_bytes), hand(1), admission(1),
        entries(n_pages), tables(1), stats(cache::stats_ref<>::words(1, 64)), store(n_pages * page_bytes) {
    tables[0] = cache::page_table_ref<>(entries.span());
    for (std::uint64_t p = 0; p < n_pages; ++p) {
      for (std::size_t o = 0; o < page_bytes; ++o) store[p * page_bytes + o] = pattern_byte(0, p, o);
    }
  }
  gpu_cache ref() const {
    const cache::cache_storage<> s{states.span(), tags.span(), data.span(), hand.data(), admission.data(),
                                   cuda::std::span<const cache::page_table_ref<>>(tables.data(), 1),
                                   stats.span()};
    return gpu_cache(s, cache::cache_options{page_bytes, 10'000'000'000ULL}, device_store_backend{store.data()});
  }
  managed<std::uint32_t> states;
  managed<std::uint64_t> tags;
  managed<std::byte> data;
  managed<std::uint64_t> hand;
  managed<std::uint64_t> admission;
  managed<std::uint32_t> entries;
  managed<cache::page_table_ref<>> tables;
  managed<std::uint64_t> stats;
  managed<std::byte> store;
};

BAM_HD std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x7FB5'D329'728E'A185ULL;
  x ^= x >> 27;
  return x;
}

/// Counters the kernels fill.
struct outcome {
  unsigned long long reads;
  unsigned long long wrong;
  unsigned long long failed;
};

__global__ void read_kernel(gpu_cache cache, std::uint64_t n_pages, unsigned iterations, outcome* out) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const std::uint64_t warp = tid / 32;
  unsigned long long wrong = 0, failed = 0;
  for (unsigned i = 0; i < iterations; ++i) {
    warp_group g;
    const std::uint64_t shared = mix(warp * 1'000'003 + i);
    const std::uint64_t own = mix(tid * 7'777'777 + i);
    // Lanes of a warp mostly share 4 pages (coalescing); a hot set of 256 pages brings hits.
    std::uint64_t page = (shared % 2) ? shared % 256 : (shared + g.rank() % 4) % n_pages;
    if (own % 8 == 0) page = own % n_pages;
    const std::size_t offset = 8 * (own % words_per_page);
    std::uint64_t v = 0;
    if (cache.load(g, page_key{0, page}, offset, v) != status::ok) {
      ++failed;
    } else if (v != pattern_word(0, page, offset)) {
      ++wrong;
    }
  }
  atomicAdd(&out->reads, iterations);
  atomicAdd(&out->wrong, wrong);
  atomicAdd(&out->failed, failed);
}

BAM_HD std::uint64_t written_value(std::uint64_t page, unsigned lane) { return mix(page * 64 + lane) | 1; }

/// Each warp owns the pages `page % n_warps == warp`; its lanes write word `lane` of one of them
/// together (a coalesced store), read it back, and read a random page to force evictions.
__global__ void write_kernel(gpu_cache cache, std::uint64_t n_pages, unsigned iterations,
                             std::uint32_t* touched, outcome* out) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const std::uint64_t warp = tid / 32;
  const std::uint64_t n_warps = gridDim.x * std::uint64_t{blockDim.x} / 32;
  unsigned long long wrong = 0, failed = 0;
  for (unsigned i = 0; i < iterations; ++i) {
    warp_group g;
    const std::uint64_t page = warp + n_warps * (mix(warp * 31 + i) % (n_pages / n_warps));
    const unsigned lane = g.rank();
    if (cache.store(g, page_key{0, page}, 8 * lane, written_value(page, lane)) != status::ok) ++failed;
    if (lane == 0) touched[page] = 1;
    std::uint64_t v = 0;
    if (cache.load(g, page_key{0, page}, 8 * lane, v) != status::ok) {
      ++failed;
    } else if (v != written_value(page, lane)) {
      ++wrong;
    }
    const std::uint64_t other = mix(tid + i * 12345) % n_pages;
    if (cache.load(g, page_key{0, other}, 8 * words_per_page - 8, v) != status::ok) ++failed;
  }
  atomicAdd(&out->reads, iterations);
  atomicAdd(&out->wrong, wrong);
  atomicAdd(&out->failed, failed);
}

__global__ void flush_kernel(gpu_cache cache, unsigned* failures) {
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (cache.flush(tid, gridDim.x * blockDim.x) != status::ok) atomicAdd(failures, 1U);
}

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

/// Grid and cache sizes of one run.
struct run_shape {
  unsigned blocks;
  unsigned threads;
  std::uint64_t n_pages;
  unsigned iterations;
  std::uint32_t n_slots() const { return 2 * blocks * threads; }  // more slots than lanes
};

constexpr run_shape full{64, 256, 1 << 19, 200};  // 256 MiB of data, 16 MiB of cache
constexpr run_shape small{4, 128, 1 << 12, 32};   // for compute-sanitizer

void reads_are_right(const run_shape& shape) {
  gpu_cache_owner owner(shape.n_slots(), shape.n_pages);
  managed<outcome> out(1);
  read_kernel<<<shape.blocks, shape.threads>>>(owner.ref(), shape.n_pages, shape.iterations, out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out[0].wrong, 0U);
  EXPECT_EQ(out[0].failed, 0U);
  const cache::cache_stats s = owner.ref().stats().total();
  EXPECT_EQ(s.accesses, out[0].reads);
  EXPECT_EQ(s.hits + s.misses + s.coalesced, s.accesses);
  EXPECT_GT(s.coalesced, 0U);
  EXPECT_GT(s.evictions, 0U);
  for (std::uint32_t slot = 0; slot < shape.n_slots(); ++slot) {
    ASSERT_EQ(cache::page_state(owner.states[slot]).pins(), 0U);
  }
  std::printf("reads %llu hits %llu misses %llu coalesced %llu evictions %llu\n", out[0].reads,
              static_cast<unsigned long long>(s.hits), static_cast<unsigned long long>(s.misses),
              static_cast<unsigned long long>(s.coalesced), static_cast<unsigned long long>(s.evictions));
}

void writes_survive(const run_shape& shape) {
  gpu_cache_owner owner(shape.n_slots(), shape.n_pages);
  managed<outcome> out(1);
  managed<std::uint32_t> touched(shape.n_pages);
  managed<unsigned> flush_failures(1);
  write_kernel<<<shape.blocks, shape.threads>>>(owner.ref(), shape.n_pages, shape.iterations,
                                                touched.data(), out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out[0].wrong, 0U);
  EXPECT_EQ(out[0].failed, 0U);
  flush_kernel<<<shape.blocks, shape.threads>>>(owner.ref(), flush_failures.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(flush_failures[0], 0U);
  std::uint64_t stale = 0, pages_written = 0;
  for (std::uint64_t p = 0; p < shape.n_pages; ++p) {
    if (!touched[p]) continue;
    ++pages_written;
    const std::byte* page = owner.store.data() + p * page_bytes;
    for (unsigned lane = 0; lane < 32; ++lane) {
      std::uint64_t w = 0;
      std::memcpy(&w, page + 8 * lane, 8);
      stale += w != written_value(p, lane);
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, page + 8 * 32, 8);
    stale += tail != pattern_word(0, p, 8 * 32);
  }
  EXPECT_GT(pages_written, 0U);
  EXPECT_EQ(stale, 0U) << "the store holds every write after the flush";
  EXPECT_GT(owner.ref().stats().total().write_backs, 0U);
}

TEST(CacheGpu, WarpsReadRandomPagesAndEveryReadIsRight) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  reads_are_right(full);
}

TEST(CacheGpu, WritesSurviveEvictionAndFlush) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  writes_survive(full);
}

TEST(CacheGpu, SanitizeSmallReadsAndWrites) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  reads_are_right(small);
  writes_survive(small);
}

}  // namespace
}  // namespace bam::test
