// SPDX-License-Identifier: Apache-2.0
// Several queue pairs of one controller driven at once by std::threads, with every read
// checked: one thread per pair keeping several commands in flight, and several threads sharing
// a pair with one command each.
//
// Why not both at once: a command id is ticket % depth, and it stays owned until its thread
// releases it. A thread that holds completed commands while other threads lap the queue can
// block them, and if it then waits for a slot one of them holds, neither moves. One thread per
// pair cannot lap itself (depth < queue depth), and threads holding one command at a time
// never wait while holding another.
#include "tests/nvme_guest/guest_support.hpp"

#include "apps/bam-nvme/pattern.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <exception>
#include <thread>
#include <vector>

namespace bam::guest {
namespace {

using nvme_tool::fill_pattern;
using nvme_tool::find_mismatch;

struct counts {
  std::atomic<std::uint64_t> reads{0};
  std::atomic<std::uint64_t> bad{0};
};

/// Thread `t` owns LBAs [t * region, (t + 1) * region) of namespace 1 (512 B blocks): it writes
/// its pattern there, then reads random 4 KiB pieces back with `depth` commands in flight.
void worker(opened& c, host::block_io& io, std::uint32_t t, std::uint64_t region, std::uint32_t depth,
            std::uint32_t reads, counts& n) {
  const std::uint64_t seed = 1000 + t;
  const std::uint64_t first = t * region;
  dma_buffer data = c.buffer(region * 512);
  fill_pattern(data.host(), data.size(), seed, first * 512);
  for (std::uint64_t done = 0; done < region; done += 128) io.write(1, first + done, 128, data, done * 512);

  std::vector<dma_buffer> bufs;
  for (std::uint32_t i = 0; i < depth; ++i) bufs.push_back(c.buffer(4096));
  struct in_flight {
    std::uint64_t ticket;
    std::uint64_t lba;
    std::size_t buf;
  };
  std::deque<in_flight> q;
  std::uint64_t x = seed;
  auto finish = [&] {
    const in_flight f = q.front();
    q.pop_front();
    io.wait(f.ticket);
    if (find_mismatch(bufs[f.buf].host(), 4096, seed, f.lba * 512)) n.bad.fetch_add(1);
    n.reads.fetch_add(1);
    return f.buf;
  };
  for (std::uint32_t i = 0; i < reads; ++i) {
    const std::size_t b = q.size() < depth ? q.size() : finish();
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t lba = first + (x >> 33) % (region / 8) * 8;
    q.push_back({io.submit(nvme::io_opcode::read, 1, lba, 8, bufs[b]), lba, b});
  }
  while (!q.empty()) finish();
}

void run(std::uint32_t pairs, std::uint32_t threads_per_pair, std::uint32_t depth, std::uint32_t reads) {
  ASSERT_TRUE(threads_per_pair == 1 || depth == 1) << "see the comment at the top";
  opened c = open_controller(topology::main_ctrl, pairs);
  ASSERT_EQ(c.ctrl->io_queues().size(), pairs);
  std::vector<host::block_io> ios;
  for (std::uint32_t q = 0; q < pairs; ++q) ios.push_back(c.io(q));
  counts n;
  const std::uint32_t threads = pairs * threads_per_pair;
  std::vector<std::exception_ptr> failures(threads);
  std::vector<std::thread> team;
  for (std::uint32_t t = 0; t < threads; ++t)
    team.emplace_back([&, t] {
      try {
        worker(c, ios[t % pairs], t, 1024, depth, reads, n);
      } catch (...) {
        failures[t] = std::current_exception();
      }
    });
  for (auto& th : team) th.join();
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
  EXPECT_EQ(n.reads.load(), std::uint64_t{threads} * reads);
  EXPECT_EQ(n.bad.load(), 0u);
  std::printf("  %u pairs x %u threads x depth %u: %llu reads verified\n", pairs, threads_per_pair, depth,
              static_cast<unsigned long long>(n.reads.load()));
}

TEST(Concurrency, QueuePairsDrivenByThreadsWithCommandsInFlight) { run(4, 1, 16, 500); }

TEST(Concurrency, ThreadsShareQueuePairs) { run(2, 4, 1, 150); }

}  // namespace
}  // namespace bam::guest
