// SPDX-License-Identifier: Apache-2.0
// Example: writes through the cache, flush(), and how errors reach the host.
//
// Stores make pages dirty in the cache; evictions write some back in no particular order, and
// page_cache::flush() writes back every dirty page and sends NVMe Flush. Accesses that fail (an
// index out of range, an NVMe error) do not throw where they happen, which may be a GPU thread:
// they read as T{} and are recorded, and page_cache::check() (or flush()) throws the first one
// on the host with its context. Runs on CPU threads (use_gpu = false) on any machine.
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/ram_store.hpp>

#include <bam/error.hpp>
#include <bam/page_cache.hpp>

#include <cstdint>
#include <cstdio>
#include <span>
#include <thread>
#include <vector>

int main() try {
  constexpr std::uint64_t n = std::uint64_t{1} << 17;  // 1 MiB of std::uint64_t
  // Namespace 1: 2 MiB of RAM; the first half holds the array, the second a "damaged" region.
  auto ram = std::make_shared<bam::host::ram_store>(512, 2 * n * sizeof(std::uint64_t) / 512);
  bam::host::emulated_system sys({.controllers = {{ram}}, .workers_per_controller = 1, .queue_pairs = 4,
                                  .queue_depth = 64, .use_gpu = false});
  bam::page_cache cache(sys.controllers(), sys.memory(), {.page_bytes = 4096, .cache_bytes = 16 * 4096});
  const auto squares = cache.map<std::uint64_t>({.name = "squares", .nsid = 1, .start_lba = 0, .count = n});

  // 1. Writes: two threads store i*i into halves of the array (16 times the cache: most pages
  //    are written back by evictions before flush() sees them).
  {
    std::vector<std::jthread> team;
    for (std::uint64_t t = 0; t < 2; ++t)
      team.emplace_back([&, t] {
        for (std::uint64_t i = t * n / 2; i < (t + 1) * n / 2; ++i) squares.store(i, i * i);
      });
  }  // joined: every store happened before flush()

  // 2. flush(): the remaining dirty pages to the namespace, then NVMe Flush. Throws like check().
  cache.flush();

  // 3. The namespace itself now holds every value (read here behind the cache's back).
  std::vector<std::uint64_t> stored(n);
  const std::span<std::byte> dst(reinterpret_cast<std::byte*>(stored.data()), n * sizeof(std::uint64_t));
  ram->readv(0, std::uint32_t(dst.size() / 512), std::span(&dst, 1));
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) wrong += stored[i] != i * i;
  std::printf("after flush: %llu of %llu values differ in the namespace\n", (unsigned long long)wrong,
              (unsigned long long)n);

  // 4. An index out of range: the read returns 0 and check() throws bam::invalid_argument.
  const std::uint64_t past_end = squares[n];
  try {
    cache.check();
    std::puts("error: check() did not report the index out of range");
    return 1;
  } catch (const bam::invalid_argument& e) {
    std::printf("read past the end returned %llu; check() threw: %s\n", (unsigned long long)past_end, e.what());
  }

  // 5. A media error: the emulator fails every read of the second half with "unrecovered read
  //    error"; check() throws bam::nvme_error naming the command, its LBA and the status.
  bam::host::fault_rule rule;
  rule.match.lba_first = n * sizeof(std::uint64_t) / 512;
  sys.emulator(0).faults().add(rule);
  const auto damaged = cache.map<std::uint64_t>({.name = "damaged", .nsid = 1, .start_lba = rule.match.lba_first, .count = n});
  (void)damaged[0];
  try {
    cache.check();
    std::puts("error: check() did not report the media error");
    return 1;
  } catch (const bam::nvme_error& e) {
    std::printf("check() threw bam::nvme_error: %s\n", e.what());
  }
  return wrong == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "write_flush_example: %s\n", e.what());
  return 1;
}
