// SPDX-License-Identifier: Apache-2.0
// Many client threads, each with its own queue pair and several commands in flight, against
// one emulated controller: every byte read is verified, every write is read back.
#include "tests/host/emulator_fixture.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

namespace {
using namespace bam;

constexpr std::uint64_t seed = 4242;
constexpr int threads = 6;
constexpr int depth = 8;
constexpr int reads_per_thread = 300;

TEST(EmulatedStress, ManyQueuesManyThreadsEveryReadVerified) {
  auto opts = test::test_options();
  opts.n_workers = 3;
  // nsid 1: a synthetic terabyte to read; nsid 2: RAM that each thread writes a slice of.
  test::emulator emu({std::make_shared<host::synthetic_store>(host::synthetic_store::options{
                          .block_size = 512, .n_blocks = (1ull << 40) / 512, .seed = seed}),
                      std::make_shared<host::ram_store>(4096, threads * 64)},
                     opts);
  emu.driver().enable();
  std::vector<test::raw_nvme_driver::queue_pair> queues;
  for (int t = 0; t < threads; ++t) queues.push_back(emu.driver().create_io_pair(std::uint16_t(t + 1), 32));

  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t) {
    clients.emplace_back([&, t] {
      // Each thread drives its own pair through its own driver view (the admin queue is
      // not touched here, so sharing the BAR is all they share).
      test::raw_nvme_driver drv(emu.ctrl(), emu.dma());
      auto& q = queues[t];
      std::vector<dma_buffer> bufs;
      for (int i = 0; i < depth; ++i) bufs.push_back(drv.alloc(4096));
      std::mt19937_64 rng(t);
      std::vector<std::uint64_t> lba_of(65536);
      const auto check = [&](const nvme::completion& c) {
        const int slot = c.cid() % depth;
        const std::uint64_t lba = lba_of[c.cid()];
        if (!c.status().ok() ||
            synthetic_mismatch(seed, lba * 512, bufs[slot].host(), 4096) != 4096) {
          failures.fetch_add(1);
        }
      };
      // Keep `depth` reads in flight; command id k uses buffer k % depth.
      for (int issued = 0, done = 0; done < reads_per_thread;) {
        if (issued < reads_per_thread && issued - done < depth) {
          const std::uint64_t lba = rng() % ((1ull << 31) - 8);
          lba_of[std::uint16_t(issued)] = lba;
          drv.submit(q, nvme::make_read(1, lba, 8, bufs[issued % depth].bus_at(0), 0));
          ++issued;
        } else {
          check(drv.wait(q));
          ++done;
        }
      }
      // Writes to this thread's slice of namespace 2, then reads back through the controller.
      for (std::uint64_t b = 0; b < 64; b += 8) {
        synthetic_fill(t, b * 4096, bufs[0].host(), 4096);
        const std::uint64_t lba = std::uint64_t(t) * 64 + b;
        if (!drv.execute(q, nvme::make_write(2, lba, 1, bufs[0].bus_at(0), 0)).status().ok() ||
            !drv.execute(q, nvme::make_read(2, lba, 1, bufs[1].bus_at(0), 0)).status().ok() ||
            synthetic_mismatch(t, b * 4096, bufs[1].host(), 4096) != 4096) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(failures.load(), 0);
  const auto stats = emu.ctrl().stats();
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_EQ(stats.commands, std::uint64_t(threads) * (reads_per_thread + 16) + 2 * threads);
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(emu.ctrl().queue_stats(std::uint16_t(t + 1))->commands, reads_per_thread + 16u);
  }
  // Queues can be torn down while the controller runs.
  for (const auto& q : queues) emu.driver().delete_io_pair(q);
  emu.driver().disable();
}

}  // namespace
