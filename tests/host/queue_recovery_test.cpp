// SPDX-License-Identifier: Apache-2.0
// host::queue_recovery end to end on the CPU: threads standing in for warps read verified data
// through the queue pairs of an emulated controller while one command is lost; only the read
// waiting on it fails, the recovery thread re-creates the pair's queues (or resets the
// controller when that fails) and the pair returns to service. And bam::page_cache runs one.
#include "tests/host/controller_rig.hpp"

#include "host/queue_recovery.hpp"
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/page_cache.hpp>
#include <bam/synthetic.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace bam;
using test::emu_options;
using test::rig;
using test::seconds;
using test::transfer;
using queue = queues::queue_pair_ref<>;

constexpr std::uint64_t seed = 99;

std::shared_ptr<host::synthetic_store> synthetic_namespace() {
  return std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1 << 22, seed, 64});
}

/// Fast polling and retries, so tests see recoveries within milliseconds.
host::queue_recovery_options quick() {
  host::queue_recovery_options o;
  o.min_sleep = std::chrono::microseconds(100);
  o.max_sleep = std::chrono::microseconds(1000);
  o.retry_min = std::chrono::milliseconds(5);
  o.retry_max = std::chrono::milliseconds(50);
  return o;
}

/// Waits until `n` events have been taken from `take` (or 10 s pass) and returns them.
template <class Take>
std::vector<recovery_event> wait_for_events(std::size_t n, Take take) {
  std::vector<recovery_event> all;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (all.size() < n && std::chrono::steady_clock::now() < deadline) {
    for (const recovery_event& e : take()) all.push_back(e);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return all;
}

/// Polls `pred` until it holds; false after 10 s.
template <class Pred>
bool eventually(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

/// Result of one read through the pairs.
enum class outcome { ok, wrong_data, lost, error };

/**
 * @brief A user's read of 8 blocks at `lba` through the pairs of `c`, starting at pair `first`:
 * a pair out of service (try_enter false) or one that fails before the command is submitted
 * (nothing anybody waits for) sends the read to the next pair; a completion that never comes
 * is `lost`.
 */
outcome read(const host::controller& c, std::size_t first, transfer& x, std::uint64_t lba,
             std::uint64_t timeout_ns, std::uint32_t* lost_cid = nullptr) {
  const auto& pairs = c.io_queues();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (std::size_t k = first;; ++k) {
    if (std::chrono::steady_clock::now() > give_up) return outcome::error;
    const queue& q = pairs[k % pairs.size()];
    if (!q.try_enter()) {
      std::this_thread::yield();
      continue;
    }
    const std::uint64_t deadline = detail::now_ns() + timeout_ns;
    std::uint64_t ticket = 0;
    const status s = q.submit(nvme::make_read(1, lba, 8, x.prp.prp1, x.prp.prp2), ticket, deadline);
    if (s != status::ok) {  // queue_failed, or a slot wait that ran out: not submitted
      q.leave();
      continue;
    }
    const auto r = q.wait(ticket, deadline);
    q.leave();
    if (r.status == status::timeout) {
      if (lost_cid) *lost_cid = q.cid_of(ticket);
      return outcome::lost;
    }
    if (!r.ok()) return outcome::error;
    return synthetic_mismatch(seed, lba * 512, x.data.host(), 4096) == 4096 ? outcome::ok : outcome::wrong_data;
  }
}

TEST(QueueRecovery, OneLostCommandFailsOnlyItsReadAndThePairReturnsToService) {
  host::controller_options co;
  co.io_queue_pairs = 4;
  co.queue_depth = 32;
  rig r({synthetic_namespace()}, emu_options(), co);
  host::queue_recovery recovery({r.ctrl.get()}, quick());
  // The one read of LBA `victim` is dropped, on whichever pair it goes to.
  constexpr std::uint64_t victim = 1 << 21;
  host::fault_rule drop;
  drop.match.opcode = std::uint8_t(nvme::io_opcode::read);
  drop.match.lba_first = drop.match.lba_last = victim;
  drop.action.effect = host::fault_effect::drop;
  r.emu.faults().add(drop);

  constexpr unsigned threads = 8, per_thread = 300;
  std::atomic<unsigned> ok{0}, wrong{0}, lost{0}, errors{0};
  std::atomic<std::uint32_t> lost_cid{0};
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      transfer x(r.dma, 4096, 4096);
      for (unsigned i = 0; i < per_thread; ++i) {
        const bool is_victim = t == 0 && i == per_thread / 4;
        const std::uint64_t lba = is_victim ? victim : (synthetic_word(t, i) % (victim / 8)) * 8;
        std::uint32_t cid = 0;
        switch (read(*r.ctrl, t + i, x, lba, seconds / 4, &cid)) {
          case outcome::ok: ++ok; break;
          case outcome::wrong_data: ++wrong; break;
          case outcome::lost:
            ++lost;
            EXPECT_TRUE(is_victim) << "thread " << t << " lost the read of LBA " << lba;
            lost_cid = cid;
            break;
          case outcome::error: ++errors; break;
        }
      }
    });
  }
  for (auto& t : team) t.join();
  EXPECT_EQ(lost.load(), 1u);
  EXPECT_EQ(ok.load(), threads * per_thread - 1);
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(errors.load(), 0u);
  EXPECT_EQ(r.emu.stats().dropped, 1u);

  const auto events = wait_for_events(1, [&] { return recovery.take_events(); });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].controller, 0u);
  EXPECT_EQ(events[0].lost_cid, lost_cid.load());
  EXPECT_FALSE(events[0].controller_reset);
  EXPECT_GT(events[0].recovery_ms, 0.0);
  EXPECT_LT(events[0].recovery_ms, 5'000.0);
  EXPECT_EQ(recovery.errors(), 0u);
  EXPECT_EQ(recovery.last_error(), "");
  const queue& failed = r.ctrl->io_queues()[events[0].qid - 1u];
  // Every pair serves again; the failed one after its first user reset it.
  transfer x(r.dma, 4096, 4096);
  for (std::size_t p = 0; p < r.ctrl->io_queues().size(); ++p) {
    EXPECT_EQ(read(*r.ctrl, p, x, 4096, 5 * seconds), outcome::ok) << "pair " << p;
  }
  EXPECT_FALSE(failed.failed());
  EXPECT_EQ(failed.epoch(), 1u);
  EXPECT_TRUE(recovery.take_events().empty());
}

TEST(QueueRecovery, WhenRecreatingFailsTheControllerIsResetOnceEveryPairIsQuiet) {
  host::controller_options co;
  co.io_queue_pairs = 2;
  co.queue_depth = 32;
  co.admin_timeout = std::chrono::milliseconds(200);
  rig r({synthetic_namespace()}, emu_options(), co);
  host::queue_recovery recovery({r.ctrl.get()}, quick());
  // Abort never completes: the admin queue fails, and only a reset brings it back.
  host::fault_rule no_abort;
  no_abort.match.queue = host::command_set::admin;
  no_abort.match.opcode = std::uint8_t(nvme::admin_opcode::abort);
  no_abort.action.effect = host::fault_effect::drop;
  const std::size_t abort_rule = r.emu.faults().add(no_abort);
  host::fault_rule drop;
  drop.match.qid = 1;
  drop.action.effect = host::fault_effect::drop;
  const std::size_t drop_rule = r.emu.faults().add(drop);

  transfer x(r.dma, 4096, 4096);
  EXPECT_EQ(read(*r.ctrl, 0, x, 64, seconds / 5), outcome::lost);
  r.emu.faults().remove(drop_rule);
  // Pair 2 is still in service: no reset yet, while re-creating pair 1 keeps failing.
  ASSERT_TRUE(eventually([&] { return recovery.errors() >= 2; }));
  EXPECT_NE(recovery.last_error().find("abort command id"), std::string::npos) << recovery.last_error();
  EXPECT_TRUE(recovery.take_events().empty());
  EXPECT_EQ(read(*r.ctrl, 1, x, 64, 5 * seconds), outcome::ok) << "pair 2 serves meanwhile";
  r.emu.faults().remove(abort_rule);

  const queue& q2 = r.ctrl->io_queues()[1];
  ASSERT_TRUE(q2.try_enter());
  q2.fail();
  q2.leave();
  const auto events = wait_for_events(2, [&] { return recovery.take_events(); });
  ASSERT_EQ(events.size(), 2u);
  for (const recovery_event& e : events) EXPECT_TRUE(e.controller_reset);
  EXPECT_EQ(events[0].qid + events[1].qid, 3u);
  for (std::size_t p = 0; p < 2; ++p) {
    EXPECT_EQ(read(*r.ctrl, p, x, 8 * (p + 1), 5 * seconds), outcome::ok) << "pair " << p;
    EXPECT_EQ(r.ctrl->io_queues()[p].epoch(), 1u);
  }
}

TEST(QueueRecovery, OneRecoveryPerControllerAtATime) {
  host::controller_options co;
  co.io_queue_pairs = 1;
  rig r({synthetic_namespace()}, emu_options(), co);
  {
    host::queue_recovery first({r.ctrl.get()});
    EXPECT_THROW(host::queue_recovery({r.ctrl.get()}), invalid_argument);
  }
  host::queue_recovery again({r.ctrl.get()});
  EXPECT_THROW(host::queue_recovery({nullptr}), invalid_argument);
}

TEST(QueueRecovery, APageCacheRecoversThePairsOfItsControllers) {
  host::controller_options co;
  co.io_queue_pairs = 2;
  co.queue_depth = 16;
  rig r({synthetic_namespace()}, emu_options(), co);
  page_cache_options po;
  po.cache_bytes = 64 * 4096;
  page_cache cache({r.ctrl.get()}, r.dma, po);
  EXPECT_THROW(host::queue_recovery({r.ctrl.get()}), invalid_argument) << "the cache's recovery holds it";
  const queue& q = r.ctrl->io_queues()[1];
  ASSERT_TRUE(q.try_enter());
  q.fail(7);
  q.leave();
  const auto events = wait_for_events(1, [&] { return cache.take_recoveries(); });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].qid, 2u);
  EXPECT_EQ(events[0].lost_cid, 7u);
  transfer x(r.dma, 4096, 4096);
  EXPECT_EQ(read(*r.ctrl, 1, x, 800, 5 * seconds), outcome::ok);
  EXPECT_EQ(q.epoch(), 1u);
  const auto a = cache.map<std::uint64_t>({.name = "words", .nsid = 1, .start_lba = 0, .count = 1 << 16});
  EXPECT_EQ(a[1000], synthetic_word(seed, 1000));
}

}  // namespace
