// SPDX-License-Identifier: Apache-2.0
// Recovery against QEMU's controller while bam holds it: a bam::page_cache (whose recovery
// thread watches every queue pair) and block_io objects stay alive while one pair's queues are
// aborted, deleted and re-created, and then while the whole controller is reset; afterwards the
// same objects read and verify again, and write.
#include "tests/nvme_guest/guest_support.hpp"

#include "apps/bam-nvme/pattern.hpp"

#include <bam/detail/atomic.hpp>
#include <bam/page_cache.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace bam::guest {
namespace {

using nvme_tool::fill_pattern;
using nvme_tool::find_mismatch;
using nvme_tool::pattern_word;
using queue = queues::queue_pair_ref<>;

constexpr std::uint64_t seed = 777;
constexpr std::uint64_t start_lba = 16384;         // namespace 1, 512 B blocks
constexpr std::uint64_t n_words = (2u << 20) / 8;  // 2 MiB of 64-bit words

/// Random words of `a` read by 4 threads; returns how many were wrong.
unsigned wrong_words(const array<std::uint64_t>& a, unsigned salt) {
  std::atomic<unsigned> wrong{0};
  std::vector<std::thread> team;
  for (unsigned t = 0; t < 4; ++t) {
    team.emplace_back([&, t] {
      std::uint64_t x = salt * 16 + t + 1;
      for (unsigned i = 0; i < 300; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const std::uint64_t idx = (x >> 20) % a.size();
        if (a[idx] != pattern_word(seed, start_lba * 512 + idx * 8)) ++wrong;
      }
    });
  }
  for (auto& t : team) t.join();
  return wrong.load();
}

/// block_io reads 64 KiB at `lba` and checks it against the pattern.
void read_and_verify(host::block_io& io, dma_buffer& buf, std::uint64_t lba) {
  std::memset(buf.host(), 0, buf.size());
  io.read(1, lba, std::uint32_t(buf.size() / 512), buf);
  const auto bad = find_mismatch(buf.host(), buf.size(), seed, lba * 512);
  EXPECT_FALSE(bad) << "LBA " << lba << ": first difference at byte " << bad.value_or(0);
}

/// Polls `take` until it returned `n` events (10 s at most).
std::vector<recovery_event> wait_for_recoveries(page_cache& cache, std::size_t n) {
  std::vector<recovery_event> all;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (all.size() < n && std::chrono::steady_clock::now() < deadline) {
    for (const recovery_event& e : cache.take_recoveries()) all.push_back(e);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return all;
}

/// The pair's first user after a re-creation resets its control words and returns it to
/// service (block_io does not do it itself).
void restart(const queue& q) {
  ASSERT_TRUE(q.try_enter()) << "queue " << q.qid() << " did not return to service";
  q.leave();
}

TEST(Recovery, RecreateQueuesAndResetWhileBamHoldsTheController) {
  opened c = open_controller(topology::main_ctrl);
  host::block_io io0 = c.io(0);
  host::block_io io1 = c.io(1);
  dma_buffer buf = c.buffer(64 * 1024);
  for (std::uint64_t off = 0; off < n_words * 8; off += buf.size()) {
    fill_pattern(buf.host(), buf.size(), seed, start_lba * 512 + off);
    io0.write(1, start_lba + off / 512, std::uint32_t(buf.size() / 512), buf);
  }
  page_cache_options po;
  po.cache_bytes = 32 * 4096;  // far smaller than the data: every round reads from the controller
  po.timeout = std::chrono::seconds(20);
  page_cache cache({c.ctrl.get()}, c.binding->memory(), po);
  const auto a = cache.map<std::uint64_t>({.name = "pattern", .nsid = 1, .start_lba = start_lba, .count = n_words});
  EXPECT_EQ(wrong_words(a, 1), 0u);

  // One pair fails as a timed-out wait fails it (command id 5 lost); its users leave. The
  // cache's recovery thread aborts the command, deletes and re-creates the pair's queues.
  const queue& q1 = c.ctrl->io_queues()[1];
  ASSERT_TRUE(q1.try_enter());
  q1.fail(5);
  q1.leave();
  const auto events = wait_for_recoveries(cache, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].qid, q1.qid());
  EXPECT_EQ(events[0].lost_cid, 5u);
  EXPECT_FALSE(events[0].controller_reset);
  restart(q1);
  EXPECT_EQ(q1.epoch(), 1u);
  read_and_verify(io1, buf, start_lba + 128);
  EXPECT_EQ(wrong_words(a, 2), 0u);

  // The last resort: every pair out of service, held idle by this thread (so the cache's
  // recovery, which waits for `quiesced`, leaves them alone), the controller reset, the pairs
  // handed back as the recovery would, and restarted by their first user.
  const auto& pairs = c.ctrl->io_queues();
  for (const queue& q : pairs) {
    ASSERT_TRUE(q.try_enter());
    q.fail();
  }
  c.ctrl->reset();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    queues::queue_health& h = c.ctrl->io_health(i);
    detail::system_atomic<std::uint32_t>(h.recreated)
        .store(detail::system_atomic<std::uint32_t>(h.failed).load(cuda::std::memory_order_acquire),
               cuda::std::memory_order_release);
    pairs[i].leave();
  }
  for (const queue& q : pairs) restart(q);
  read_and_verify(io0, buf, start_lba);
  read_and_verify(io1, buf, start_lba + 2048);
  EXPECT_EQ(wrong_words(a, 3), 0u);
  EXPECT_NO_THROW(cache.check());
  EXPECT_TRUE(cache.take_recoveries().empty()) << "the cache's recovery did not act on the reset pairs";

  // Writes go through too, and the data is where it belongs.
  fill_pattern(buf.host(), buf.size(), seed + 1, 0);
  io0.write(2, 100, std::uint32_t(buf.size() / 4096), buf);
  std::memset(buf.host(), 0, buf.size());
  io1.read(2, 100, std::uint32_t(buf.size() / 4096), buf);
  EXPECT_FALSE(find_mismatch(buf.host(), buf.size(), seed + 1, 0));
}

}  // namespace
}  // namespace bam::guest
