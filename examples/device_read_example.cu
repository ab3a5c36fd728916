// SPDX-License-Identifier: Apache-2.0
// Example: a kernel reads a terabyte-scale bam::array.
//
// The embedded default on a GPU: an emulated NVMe controller (host threads) serving a 1 TiB
// synthetic namespace, whose content is a function of the offset, so every value a kernel reads
// can be checked where it lands. GPU threads look pages up in a 64 MiB cache in VRAM; the misses
// of a warp are coalesced per page into NVMe read commands that GPU threads submit and complete
// themselves. Exits 77 (skipped) without a GPU.
#include <bam/host/memory/cuda_memory.hpp>
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/synthetic_store.hpp>

#include <bam/detail/cuda_try.hpp>
#include <bam/host/memory/cuda_buffer.hpp>
#include <bam/page_cache.hpp>
#include <bam/synthetic.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>

namespace {

constexpr std::uint64_t seed = 42;

/// Each thread reads `per_thread` elements from anywhere in the array and counts the values that
/// are not what the synthetic namespace holds. The array is passed by value: it is a view, here
/// the read-only one (`a.store(i, x)` would not compile in this kernel).
__global__ void read_random(bam::read_only_array<std::uint64_t> a, std::uint32_t per_thread,
                            unsigned long long* wrong) {
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  unsigned long long bad = 0;
  for (std::uint32_t k = 0; k < per_thread; ++k) {
    const std::uint64_t i = bam::synthetic_word(t, k) % a.size();
    bad += a[i] != bam::synthetic_word(seed, i);
  }
  if (bad) atomicAdd(wrong, bad);
}

}  // namespace

int main() try {
  if (!bam::host::cuda_device_present()) {
    std::puts("device_read_example: no GPU here; skipped");
    return 77;
  }
  // 1. A 1 TiB synthetic namespace (512-byte blocks), served by one emulated controller whose
  //    queues GPU threads drive (the default when a GPU is present).
  const std::uint64_t blocks = (std::uint64_t{1} << 40) / 512;
  auto ns = std::make_shared<bam::host::synthetic_store>(bam::host::synthetic_store::options{512, blocks, seed});
  bam::host::emulated_system sys({.controllers = {{ns}}});

  // 2. A 64 MiB cache of 4 KiB pages in VRAM, and the whole namespace as an array of words.
  bam::page_cache cache(sys.controllers(), sys.memory(), {.page_bytes = 4096, .cache_bytes = 64 << 20});
  const auto a = cache.map<std::uint64_t>({.name = "terabyte", .nsid = 1, .start_lba = 0, .count = blocks * 512 / sizeof(std::uint64_t)});

  // 3. The kernel: 4 blocks of 256 threads per SM, 16 random reads each.
  int sms = 0;
  BAM_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // A counter in Unified Memory, freed with its owner (bam::host::cuda_buffer, any CUDA memory).
  const bam::host::cuda_buffer<unsigned long long> counter(1, bam::host::cuda_allocation::managed);
  unsigned long long* const wrong = counter.data();
  *wrong = 0;
  constexpr std::uint32_t per_thread = 16;
  read_random<<<4 * sms, 256>>>(a.read_only(), per_thread, wrong);
  BAM_CUDA_TRY(cudaGetLastError());
  BAM_CUDA_TRY(cudaDeviceSynchronize());

  // 4. Device-side failures (NVMe status, timeout, bad index) become exceptions here.
  cache.check();
  std::printf("%llu random reads of a 1 TiB array, %llu wrong\n\n%s", 4ull * sms * 256 * per_thread, *wrong,
              cache.stats_table().c_str());
  return *wrong == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "device_read_example: %s\n", e.what());
  return 1;
}
