// SPDX-License-Identifier: Apache-2.0
// Example: the host set-up of a bam program, over an emulated RAM namespace.
//
// The smallest complete program: an emulated NVMe controller that serves a namespace from RAM,
// a page cache over it, and a bam::array mapped on the namespace. CPU threads drive the NVMe
// queues and read the array here (use_gpu = false), so it runs on any machine;
// device_read_example.cu does the same reads from a kernel.
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/ram_store.hpp>

#include <bam/page_cache.hpp>

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <span>
#include <thread>
#include <vector>

int main() try {
  constexpr std::uint64_t n = std::uint64_t{1} << 20;  // 4 MiB of std::uint32_t

  // 1. The namespace: 512-byte blocks in RAM, filled with 0, 1, 2, ... before anything reads it.
  auto ram = std::make_shared<bam::host::ram_store>(512, n * sizeof(std::uint32_t) / 512);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(values.data()), n * sizeof(std::uint32_t));
  ram->writev(0, std::uint32_t(ram->n_blocks()), std::span(&bytes, 1));

  // 2. One emulated controller serving it as namespace 1; its queues are driven by CPU threads.
  bam::host::emulated_system sys({.controllers = {{ram}},
                                  .workers_per_controller = 1,
                                  .queue_pairs = 4,
                                  .queue_depth = 64,
                                  .use_gpu = false});

  // 3. A page cache of 64 pages of 4 KiB: a 16th of the data, so most first reads miss.
  bam::page_cache cache(sys.controllers(), sys.memory(), {.page_bytes = 4096, .cache_bytes = 64 * 4096});

  // 4. The array: n elements of namespace 1 from LBA 0. It is a small, trivially copyable view
  //    (pass it to threads or kernels by value); the cache owns the memory behind it.
  const bam::array<std::uint32_t> a = cache.map<std::uint32_t>({.name = "numbers", .nsid = 1, .start_lba = 0, .count = n});

  // 5. Four threads sum interleaved elements. Each a[i] looks its page up in the cache; a miss
  //    becomes an NVMe read command on one of the controller's queues.
  constexpr unsigned threads = 4;
  std::vector<std::uint64_t> sums(threads);
  {
    std::vector<std::jthread> team;
    for (unsigned t = 0; t < threads; ++t)
      team.emplace_back([&, t] {
        for (std::uint64_t i = t; i < a.size(); i += threads) sums[t] += a[i];
      });
  }

  // 6. Accesses that failed read as 0 and were recorded; check() throws the first as a bam::error.
  cache.check();
  const std::uint64_t sum = std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
  std::printf("sum of %llu elements: %llu (expected %llu)\n\n%s", (unsigned long long)n, (unsigned long long)sum,
              (unsigned long long)(n * (n - 1) / 2), cache.stats_table().c_str());
  return sum == n * (n - 1) / 2 ? 0 : 1;
} catch (const std::exception& e) {  // bam::error and its kinds derive from std::runtime_error
  std::fprintf(stderr, "ram_namespace_example: %s\n", e.what());
  return 1;
}
