// SPDX-License-Identifier: Apache-2.0
// host::controller's recovery against the emulated controller: a read made to never complete
// fails its queue pair; re-creating the pair's queues (or resetting the controller) and the
// pair's next user bring it back, and reads of known data succeed again. A completion held
// past the time limit never reaches the re-created queue, and Abort aborts what it can.
#include "tests/host/controller_rig.hpp"

#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/synthetic.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

namespace {

using namespace bam;
using test::emu_options;
using test::rig;
using test::seconds;
using test::transfer;
using queue = queues::queue_pair_ref<>;

constexpr std::uint64_t seed = 2024;

std::shared_ptr<host::synthetic_store> synthetic_namespace() {
  return std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1 << 20, seed, 64});
}

host::controller_options two_pairs() {
  host::controller_options co;
  co.io_queue_pairs = 2;
  co.queue_depth = 32;
  co.admin_timeout = std::chrono::milliseconds(500);
  return co;
}

/// A rule that drops (or delays by `delay_ns`) reads of LBA `lba` on queue `qid`.
host::fault_rule rule_for(std::uint16_t qid, std::uint64_t lba, std::uint64_t delay_ns = 0) {
  host::fault_rule r;
  r.match.qid = qid;
  r.match.opcode = std::uint8_t(nvme::io_opcode::read);
  r.match.lba_first = r.match.lba_last = lba;
  r.action.effect = delay_ns ? host::fault_effect::delay : host::fault_effect::drop;
  r.action.delay_ns = delay_ns;
  return r;
}

std::uint32_t load(std::uint32_t& word) {
  return detail::system_atomic<std::uint32_t>(word).load(cuda::std::memory_order_acquire);
}

/// What queue_recovery does once the queues are re-created: hand the pair back.
void publish_recreated(queues::queue_health& h) {
  detail::system_atomic<std::uint32_t>(h.recreated).store(load(h.failed), cuda::std::memory_order_release);
}

/// A user of `q` reads 8 blocks at `lba` into `x` and checks them against the namespace.
void read_and_verify(const queue& q, transfer& x, std::uint64_t lba) {
  ASSERT_TRUE(q.try_enter()) << "queue " << q.qid() << " is out of service";
  std::memset(x.data.host(), 0, 4096);
  const auto r = q.execute(nvme::make_read(1, lba, 8, x.prp.prp1, x.prp.prp2), 10 * seconds);
  q.leave();
  ASSERT_TRUE(r.ok()) << "read of LBA " << lba << " on queue " << q.qid() << ": " << to_string(r.status);
  EXPECT_EQ(synthetic_mismatch(seed, lba * 512, x.data.host(), 4096), 4096u) << "LBA " << lba;
}

/// A user of `q` whose read of `lba` never completes within `timeout_ns`: the pair fails, the
/// user leaves, the record says failed and quiesced. Returns the lost command id.
std::uint32_t lose_a_read(const queue& q, queues::queue_health& h, transfer& x, std::uint64_t lba,
                          std::uint64_t timeout_ns) {
  EXPECT_TRUE(q.try_enter());
  const auto r = q.execute(nvme::make_read(1, lba, 8, x.prp.prp1, x.prp.prp2), timeout_ns);
  EXPECT_EQ(r.status, status::timeout);
  EXPECT_TRUE(q.failed());
  q.leave();
  EXPECT_EQ(load(h.failed), q.epoch() + 1);
  EXPECT_EQ(load(h.quiesced), q.epoch() + 1) << "the last user to leave reports the pair quiet";
  return load(h.lost_cid);
}

TEST(ControllerRecovery, ALostReadFailsItsPairAndRecreatingTheQueuesBringsItBack) {
  rig r({synthetic_namespace()}, emu_options(), two_pairs());
  const queue& q = r.ctrl->io_queues()[0];
  queues::queue_health& h = r.ctrl->io_health(0);
  transfer x(r.dma, 4096, 4096);
  read_and_verify(q, x, 100);
  const std::size_t drop = r.emu.faults().add(rule_for(q.qid(), 8));
  const std::uint32_t lost = lose_a_read(q, h, x, 8, seconds / 5);
  EXPECT_EQ(lost, q.cid_of(1)) << "the second command (ticket 1) was lost";
  EXPECT_FALSE(q.try_enter()) << "out of service until the host re-created the queues";
  read_and_verify(r.ctrl->io_queues()[1], x, 8);  // the other pair is unaffected

  r.ctrl->recreate_io_queue(0, lost);
  publish_recreated(h);
  r.emu.faults().remove(drop);
  read_and_verify(q, x, 8);  // the first user resets the pair and returns it to service
  EXPECT_EQ(q.epoch(), 1u);
  EXPECT_FALSE(q.failed());
  for (std::uint64_t lba = 0; lba < 40 * 8; lba += 8) read_and_verify(q, x, lba);  // wraps the ring
  EXPECT_EQ(r.emu.stats().dropped, 1u);
  EXPECT_EQ(r.emu.invalid_doorbell_writes(), 0u);

  // A second cycle: the epoch tells it from the first.
  r.emu.faults().add(rule_for(q.qid(), 16));
  const std::uint32_t lost2 = lose_a_read(q, h, x, 16, seconds / 5);
  EXPECT_EQ(load(h.failed), 2u);
  r.emu.faults().clear();
  r.ctrl->recreate_io_queue(0, lost2);
  publish_recreated(h);
  read_and_verify(q, x, 16);
  EXPECT_EQ(q.epoch(), 2u);
}

TEST(ControllerRecovery, AControllerResetBringsBackEveryPairAndTheAdminQueue) {
  rig r({synthetic_namespace()}, emu_options(), two_pairs());
  transfer x(r.dma, 4096, 4096);
  const queue& q0 = r.ctrl->io_queues()[0];
  const queue& q1 = r.ctrl->io_queues()[1];
  r.emu.faults().add(rule_for(q0.qid(), 8));
  const std::uint32_t lost = lose_a_read(q0, r.ctrl->io_health(0), x, 8, seconds / 5);
  // The admin queue loses a command too: Abort never completes, the admin queue fails.
  host::fault_rule no_abort;
  no_abort.match.queue = host::command_set::admin;
  no_abort.match.opcode = std::uint8_t(nvme::admin_opcode::abort);
  no_abort.action.effect = host::fault_effect::drop;
  r.emu.faults().add(no_abort);
  EXPECT_THROW(r.ctrl->recreate_io_queue(0, lost), timeout_error);
  EXPECT_THROW(r.ctrl->recreate_io_queue(0, lost), error) << "the admin queue stays failed";
  r.emu.faults().clear();

  // The reset needs every pair out of service and quiet.
  ASSERT_TRUE(q1.try_enter());
  q1.fail();
  q1.leave();
  r.ctrl->reset();
  publish_recreated(r.ctrl->io_health(0));
  publish_recreated(r.ctrl->io_health(1));
  for (std::uint64_t lba : {8u, 64u, 4000u}) {
    read_and_verify(q0, x, lba);
    read_and_verify(q1, x, lba);
  }
  EXPECT_EQ(q0.epoch(), 1u);
  EXPECT_EQ(q1.epoch(), 1u);
  // The admin queue works again, and recreate_io_queue after a reset too.
  EXPECT_EQ(r.ctrl->admin(nvme::make_get_number_of_queues(), "get number of queues") & 0xffff, 1u);
  ASSERT_TRUE(q1.try_enter());
  q1.fail();
  q1.leave();
  r.ctrl->recreate_io_queue(1);
  publish_recreated(r.ctrl->io_health(1));
  read_and_verify(q1, x, 72);
  r.ctrl->shutdown();
  EXPECT_THROW(r.ctrl->reset(), error) << "not after shutdown";
}

TEST(ControllerRecovery, ALateCompletionNeverReachesTheRecreatedQueue) {
  rig r({synthetic_namespace()}, emu_options(), two_pairs());
  const queue& q = r.ctrl->io_queues()[0];
  queues::queue_health& h = r.ctrl->io_health(0);
  transfer late(r.dma, 4096, 4096), x(r.dma, 4096, 4096);
  constexpr std::uint64_t delay_ns = 700'000'000;
  r.emu.faults().add(rule_for(q.qid(), 8, delay_ns));
  const auto start = std::chrono::steady_clock::now();
  (void)lose_a_read(q, h, late, 8, seconds / 10);
  // No Abort: the completion is still held when Delete I/O SQ runs, which must discard it.
  r.ctrl->recreate_io_queue(0);
  publish_recreated(h);
  r.emu.faults().clear();
  // Commands of the new cycle reuse command id 0 and 1 — the lost one's — while the old
  // completion would have come due.
  while (std::chrono::steady_clock::now() - start < std::chrono::nanoseconds(delay_ns + 300'000'000)) {
    read_and_verify(q, x, 4096);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(q.try_enter());
  EXPECT_EQ(q.poll(), 0u) << "nothing but our own completions was posted";
  q.leave();
  EXPECT_FALSE(q.failed()) << "no protocol error (a completion for a command id not outstanding)";
  EXPECT_EQ(r.emu.fatal_reason(), nullptr);
  EXPECT_EQ(r.emu.stats().errors, 0u);
}

TEST(ControllerRecovery, AbortAbortsACompletionHeldInADelayAndNothingElse) {
  rig r({synthetic_namespace()}, emu_options(), two_pairs());
  const queue& q = r.ctrl->io_queues()[1];
  transfer x(r.dma, 4096, 4096);
  r.emu.faults().add(rule_for(q.qid(), 8, 30 * seconds));
  std::uint64_t ticket = 0;
  ASSERT_EQ(q.submit(nvme::make_read(1, 8, 8, x.prp.prp1, 0), ticket, detail::now_ns() + seconds), status::ok);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // executed; its completion held
  const std::uint16_t cid = q.cid_of(ticket);
  EXPECT_EQ(r.ctrl->admin(nvme::make_abort(q.qid(), cid), "abort") & 1, 0u) << "aborted";
  const auto res = q.wait(ticket, detail::now_ns() + 5 * seconds);
  EXPECT_EQ(res.status, status::io_error);
  EXPECT_EQ(res.nvme_status.sct(), nvme::status_type::generic);
  EXPECT_EQ(res.nvme_status.sc(), nvme::generic_status::abort_requested);
  EXPECT_EQ(r.emu.stats().errors, 1u);
  // Nothing held: not aborted. A queue that does not exist: invalid field.
  EXPECT_EQ(r.ctrl->admin(nvme::make_abort(q.qid(), cid), "abort") & 1, 1u);
  EXPECT_EQ(r.ctrl->admin(nvme::make_abort(0, 3), "abort") & 1, 1u);
  EXPECT_THROW((void)r.ctrl->admin(nvme::make_abort(7, 0), "abort"), nvme_error);
  EXPECT_TRUE(q.execute(nvme::make_read(1, 16, 8, x.prp.prp1, 0), 5 * seconds).ok());
}

}  // namespace
