// SPDX-License-Identifier: Apache-2.0
// The queue-pair protocol against a loopback controller thread: ticket order, doorbell
// coalescing, wrap-around and phase flips, full queues, out-of-order completions, error
// statuses, timeouts and controller faults.
#include "queues/queue_pair.hpp"

#include "tests/support/loopback_controller.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

using bam::status;
using bam::detail::now_ns;
using bam::test::loopback_action;
using bam::test::loopback_controller;
using bam::test::queue_memory;

namespace {
constexpr std::uint64_t seconds = 1'000'000'000ull;

bam::nvme::command tagged(std::uint32_t tag) { return bam::nvme::make_read(1, tag, 1, 0x1000, 0); }
}  // namespace

TEST(QueuePair, PublishCoversConsecutiveReadyEntriesWithOneDoorbellWrite) {
  queue_memory q(8);
  const auto qp = q.ref();
  const std::uint64_t t0 = qp.reserve(), t1 = qp.reserve(), t2 = qp.reserve();
  ASSERT_EQ(t0, 0u);
  ASSERT_EQ(t2, 2u);
  qp.write(t1, tagged(11));
  qp.write(t2, tagged(12));
  EXPECT_EQ(q.sq_tail(), 0u) << "entries behind an unwritten ticket must not be published";
  qp.write(t0, tagged(10));
  ASSERT_EQ(qp.publish(t0, now_ns() + seconds), status::ok);
  EXPECT_EQ(q.sq_tail(), 3u) << "one publish covers every consecutive ready entry";
  EXPECT_EQ(q.control->sq_committed, 3u);
  // A later publish of an already covered ticket writes nothing.
  ASSERT_EQ(qp.publish(t2, now_ns() + seconds), status::ok);
  EXPECT_EQ(q.sq_tail(), 3u);
  EXPECT_EQ(q.sq[1].cid(), 1u);
  EXPECT_EQ(q.sq[1].cdw10, 11u);
}

TEST(QueuePair, SequentialCommandsWrapAroundAndFlipPhase) {
  queue_memory q(4);
  loopback_controller ctrl(q);
  const auto qp = q.ref();
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const auto r = qp.execute(tagged(i), 10 * seconds);
    ASSERT_TRUE(r.ok()) << "command " << i << ": " << bam::to_string(r.status);
    ASSERT_EQ(r.dw0, i);
  }
  EXPECT_EQ(q.control->cq_head, 1000u);
  EXPECT_EQ(q.control->sq_head, 1000u);
  EXPECT_EQ(q.cq_head_doorbell, 1000u % 4);
  EXPECT_EQ(ctrl.fetched(), 1000u);
}

TEST(QueuePair, ManyThreadsEachReceiveTheirOwnCompletionOutOfOrder) {
  queue_memory q(16);
  loopback_controller ctrl(q, /*reorder_window=*/8);
  const auto qp = q.ref();
  constexpr unsigned threads = 8, per_thread = 1500;
  std::atomic<unsigned> wrong{0}, failed{0};
  std::vector<std::thread> team;
  for (unsigned w = 0; w < threads; ++w) {
    team.emplace_back([&, w] {
      for (unsigned i = 0; i < per_thread; ++i) {
        const std::uint32_t tag = w * per_thread + i;
        const auto r = qp.execute(tagged(tag), 30 * seconds);
        if (!r.ok()) ++failed;
        else if (r.dw0 != tag) ++wrong;
      }
    });
  }
  for (auto& t : team) t.join();
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_EQ(wrong.load(), 0u) << "a completion reached the wrong submitter";
  EXPECT_EQ(ctrl.fetched(), threads * per_thread) << "entries lost or duplicated";
  EXPECT_EQ(q.control->cq_head, threads * per_thread);
}

TEST(QueuePair, FullQueueBlocksSubmittersInsteadOfOverwriting) {
  constexpr std::uint32_t depth = 8;
  queue_memory q(depth);
  loopback_controller ctrl(q);
  ctrl.stall(true);
  const auto qp = q.ref();
  constexpr unsigned submitters = 12;  // more than the ring holds
  std::atomic<unsigned> completed{0}, wrong{0};
  std::vector<std::thread> team;
  for (unsigned i = 0; i < submitters; ++i) {
    team.emplace_back([&, i] {
      const auto r = qp.execute(tagged(100 + i), 30 * seconds);
      if (r.ok() && r.dw0 == 100 + i) ++completed;
      else ++wrong;
    });
  }
  // While the controller fetches nothing, at most depth - 1 entries may be published.
  const auto until = now_ns() + seconds / 5;
  while (now_ns() < until) {
    ASSERT_LE(bam::detail::system_atomic<std::uint64_t>(q.control->sq_committed).load(cuda::std::memory_order_acquire), depth - 1)
        << "a full SQ must block, not wrap onto itself";
    std::this_thread::yield();
  }
  EXPECT_EQ(q.sq_tail(), depth - 1);
  std::set<std::uint32_t> tags;
  for (std::uint32_t s = 0; s < depth - 1; ++s) tags.insert(q.sq[s].cdw10);
  EXPECT_EQ(tags.size(), depth - 1) << "an entry was overwritten";
  ctrl.stall(false);
  for (auto& t : team) t.join();
  EXPECT_EQ(completed.load(), submitters);
  EXPECT_EQ(wrong.load(), 0u);
}

TEST(QueuePair, ErrorStatusReachesTheSubmitter) {
  queue_memory q(8);
  loopback_controller ctrl(q, 1, [](const bam::nvme::command& c) {
    loopback_action a;
    if (c.cdw10 == 7)
      a.status = bam::nvme::status_field::make(bam::nvme::status_type::generic,
                                               bam::nvme::generic_status::lba_out_of_range);
    return a;
  });
  const auto qp = q.ref();
  EXPECT_TRUE(qp.execute(tagged(6), 10 * seconds).ok());
  const auto r = qp.execute(tagged(7), 10 * seconds);
  EXPECT_EQ(r.status, status::io_error);
  EXPECT_EQ(r.nvme_status.sc(), bam::nvme::generic_status::lba_out_of_range);
  EXPECT_EQ(r.nvme_status.sct(), bam::nvme::status_type::generic);
  EXPECT_TRUE(qp.execute(tagged(8), 10 * seconds).ok()) << "an error status does not fail the queue";
}

TEST(QueuePair, LostCompletionTimesOutAndFailsThePair) {
  queue_memory q(8);
  loopback_controller ctrl(q, 1, [](const bam::nvme::command& c) {
    loopback_action a;
    a.drop = c.cdw10 == 3;
    return a;
  });
  const auto qp = q.ref();
  EXPECT_TRUE(qp.execute(tagged(2), 10 * seconds).ok());
  const auto start = now_ns();
  const auto r = qp.execute(tagged(3), seconds / 10);
  EXPECT_EQ(r.status, status::timeout);
  EXPECT_GE(now_ns() - start, seconds / 10);
  EXPECT_TRUE(qp.failed());
  EXPECT_EQ(qp.execute(tagged(4), 10 * seconds).status, status::queue_failed);
}

TEST(QueuePair, DuplicateCompletionIsAControllerFault) {
  queue_memory q(8);
  loopback_controller ctrl(q, 1, [](const bam::nvme::command& c) {
    loopback_action a;
    a.duplicate = c.cdw10 == 5;
    return a;
  });
  const auto qp = q.ref();
  EXPECT_TRUE(qp.execute(tagged(5), 10 * seconds).ok());
  const auto until = now_ns() + 5 * seconds;
  while (!qp.failed() && now_ns() < until) qp.poll();
  EXPECT_TRUE(qp.failed()) << "a second completion for one command id must fail the pair";
}

TEST(QueuePair, DuplicateCompletionAfterTheFirstWasConsumedIsStillAFault) {
  // The duplicate arrives only after the waiter consumed the first completion: the command id
  // is then free, not submitted, so the stray completion cannot be taken for a later command.
  queue_memory q(8);
  const auto qp = q.ref();
  std::uint64_t t = 0;
  ASSERT_EQ(qp.submit(tagged(9), t, now_ns() + seconds), status::ok);
  auto post = [&](std::uint32_t idx, bool phase) {
    q.cq[idx].dw0 = 9;
    q.cq[idx].dw23 = bam::nvme::completion::make_dw23(1, 1, q.sq[0].cid(), {}, phase);
  };
  post(0, true);
  const auto r = qp.wait(t, now_ns() + seconds);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(qp.failed());
  post(1, true);
  qp.poll();
  EXPECT_TRUE(qp.failed());
}

TEST(QueuePair, PublishBehindATicketThatIsNeverWrittenTimesOut) {
  // Ticket 0 is reserved but never written (its submitter gave up): ticket 1 cannot be
  // published, and its submitter must time out rather than spin.
  queue_memory q(8);
  const auto qp = q.ref();
  const std::uint64_t t0 = qp.reserve(), t1 = qp.reserve();
  ASSERT_EQ(t0, 0u);
  qp.write(t1, tagged(1));
  const auto start = now_ns();
  EXPECT_EQ(qp.publish(t1, now_ns() + seconds / 10), status::timeout);
  EXPECT_GE(now_ns() - start, seconds / 10);
  EXPECT_TRUE(qp.failed());
  EXPECT_EQ(q.sq_tail(), 0u);
}
