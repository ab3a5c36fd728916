// SPDX-License-Identifier: Apache-2.0
// bam::array over bam::page_cache over QEMU's controller, unchanged from the emulated case:
// CPU threads run the code GPU warps run, every value read is checked, and stores reach the
// namespace (read back with block_io).
#include "tests/nvme_guest/guest_support.hpp"

#include "apps/bam-nvme/pattern.hpp"

#include <bam/page_cache.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace bam::guest {
namespace {

using nvme_tool::fill_pattern;
using nvme_tool::pattern_word;

template <class Fn>
void on_threads(unsigned n, Fn fn) {
  std::vector<std::thread> team;
  for (unsigned t = 0; t < n; ++t) team.emplace_back(fn, t);
  for (auto& t : team) t.join();
}

page_cache_options small_cache() {
  page_cache_options o;
  o.page_bytes = 4096;
  o.cache_bytes = 32 * 4096;  // far smaller than the data: evictions and refills
  o.timeout = std::chrono::seconds(20);
  return o;
}

TEST(Array, ReadsAndStoresThroughThePageCache) {
  opened c = open_controller(topology::main_ctrl);
  constexpr std::uint64_t seed = 4242;
  constexpr std::uint64_t start_lba = 8192;          // namespace 1, 512 B blocks
  constexpr std::uint64_t n_words = (8u << 20) / 8;  // 8 MiB of 64-bit words
  {
    host::block_io io = c.io();
    dma_buffer buf = c.buffer(1 << 20);
    for (std::uint64_t off = 0; off < n_words * 8; off += buf.size()) {
      fill_pattern(buf.host(), buf.size(), seed, start_lba * 512 + off);
      io.write(1, start_lba + off / 512, std::uint32_t(buf.size() / 512), buf);
    }
  }
  page_cache cache({c.ctrl.get()}, c.binding->memory(), small_cache());
  const auto a = cache.map<std::uint64_t>({.name = "pattern", .nsid = 1, .start_lba = start_lba, .count = n_words});
  std::atomic<unsigned> wrong{0};
  on_threads(4, [&](unsigned t) {
    std::uint64_t x = t + 1;
    for (unsigned i = 0; i < 500; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const std::uint64_t idx = (x >> 20) % a.size();
      if (a[idx] != pattern_word(seed, start_lba * 512 + idx * 8)) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_NO_THROW(cache.check());
  EXPECT_GT(cache.stats(0).counts.evictions, 0u);

  // Stores: every 8th word of the first MiB, written back by flush().
  on_threads(4, [&](unsigned t) {
    for (std::uint64_t i = t * 8; i < (1u << 20) / 8; i += 32) a.store(i, ~i);
  });
  cache.flush();
  host::block_io io = c.io();
  dma_buffer back = c.buffer(1 << 20);
  io.read(1, start_lba, (1u << 20) / 512, back);
  const auto* words = reinterpret_cast<const std::uint64_t*>(back.host());
  for (std::uint64_t i = 0; i < (1u << 20) / 8; ++i)
    ASSERT_EQ(words[i], i % 8 == 0 ? ~i : pattern_word(seed, start_lba * 512 + i * 8)) << "word " << i;
}

}  // namespace
}  // namespace bam::guest
