// SPDX-License-Identifier: Apache-2.0
// A program written from include/bam alone: an emulated controller over a synthetic namespace,
// a page cache over it, and words read through bam::array by a host thread, each checked
// against the namespace's content. Exits non-zero, naming what was wrong, on any mismatch.
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/page_cache.hpp>
#include <bam/synthetic.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>

int main() {
  constexpr std::uint64_t seed = 5;
  auto ns = std::make_shared<bam::host::synthetic_store>(bam::host::synthetic_store::options{512, 1ull << 32, seed, 16});
  bam::host::emulated_system sys(
      {.controllers = {{ns}}, .workers_per_controller = 1, .queue_pairs = 2, .queue_depth = 64, .use_gpu = false});
  bam::page_cache cache(sys.controllers(), sys.memory(), {.page_bytes = 4096, .cache_bytes = 16 * 4096});
  const auto a = cache.map<std::uint64_t>({.name = "words", .nsid = 1, .start_lba = 0, .count = 1ull << 30});
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const std::uint64_t index = bam::synthetic_word(1, i) % a.size();
    const std::uint64_t want = bam::synthetic_word(seed, index);
    if (const std::uint64_t got = a[index]; got != want) {
      std::fprintf(stderr, "word %llu: read %llx, the namespace holds %llx\n", (unsigned long long)index,
                   (unsigned long long)got, (unsigned long long)want);
      return 1;
    }
  }
  cache.check();
  std::printf("read 1000 words of a 2 TiB namespace through the installed bam, all right\n");
  return 0;
}
