// SPDX-License-Identifier: Apache-2.0
// The driver's whole I/O path on the CPU: host::controller brings up the emulated controller,
// and std::threads standing in for GPU warps drive the I/O queue pairs with queues/ code —
// every read verified against the namespace, PRP lists up to MDTS, writes read back, errors
// and lost completions reported with their context.
#include "tests/host/controller_rig.hpp"

#include "host/io_error.hpp"
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/synthetic.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace {

using namespace bam;
using test::emu_options;
using test::rig;
using test::seconds;
using test::transfer;

}  // namespace

TEST(Controller, BringUpIdentifiesTheControllerAndItsNamespaces) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 16);
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{4096, 1ull << 28, 5, 64});
  host::controller_options co;
  co.io_queue_pairs = 12;  // more than the controller allows
  co.queue_depth = 128;
  rig r({ram, syn}, emu_options(4, 6), co);
  const auto& id = r.ctrl->identity();
  EXPECT_EQ(std::string(id.mn, 28), "bam emulated NVMe controller");
  EXPECT_EQ(id.nn, 2u);
  ASSERT_EQ(r.ctrl->namespaces().size(), 2u);
  EXPECT_EQ(r.ctrl->namespace_by_id(1).block_size, 512u);
  EXPECT_EQ(r.ctrl->namespace_by_id(1).n_blocks, 1u << 16);
  EXPECT_EQ(r.ctrl->namespace_by_id(2).block_size, 4096u);
  EXPECT_EQ(r.ctrl->namespace_by_id(2).n_blocks, 1ull << 28);
  EXPECT_THROW((void)r.ctrl->namespace_by_id(3), invalid_argument);
  EXPECT_EQ(r.ctrl->io_queues().size(), 4u) << "the driver takes what Set Features granted";
  EXPECT_EQ(r.ctrl->queue_depth(), 128u);
  EXPECT_EQ(r.ctrl->max_transfer_bytes(), 64u * 4096);
  r.ctrl->shutdown();
  EXPECT_EQ(nvme::csts_register{r.emu.bar().read32(nvme::reg::csts)}.shst(), nvme::shutdown_status::complete);
}

TEST(Controller, ManyThreadsOnManyQueuesReadEveryByteCorrectly) {
  constexpr std::uint64_t seed = 77;
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1ull << 31, seed, 64});
  host::controller_options co;
  co.io_queue_pairs = 4;
  co.queue_depth = 32;
  rig r({syn}, emu_options(), co);
  constexpr unsigned threads = 8, per_thread = 300;
  std::atomic<unsigned> bad{0}, failed{0};
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      const auto& qp = r.ctrl->io_queues()[t % r.ctrl->io_queues().size()];
      const std::size_t bytes = (t % 2 ? 4096 : 64 * 1024);  // single page, and a PRP list
      transfer x(r.dma, bytes, r.ctrl->page_bytes());
      for (unsigned i = 0; i < per_thread; ++i) {
        const std::uint64_t lba = synthetic_word(t, i) % (syn->n_blocks() - bytes / 512);
        const auto res = qp.execute(nvme::make_read(1, lba, std::uint32_t(bytes / 512), x.prp.prp1, x.prp.prp2),
                                    30 * seconds);
        if (!res.ok()) ++failed;
        else if (synthetic_mismatch(seed, lba * 512, x.data.host(), bytes) != bytes) ++bad;
      }
    });
  }
  for (auto& t : team) t.join();
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(r.emu.stats().errors, 0u);
}

TEST(Controller, WritesThroughPrpListsUpToMdtsReadBackAndBeyondMdtsIsRefused) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 16);
  host::controller_options co;
  co.io_queue_pairs = 2;
  rig r({ram}, emu_options(2, 5), co);
  const std::size_t max = r.ctrl->max_transfer_bytes();
  ASSERT_EQ(max, 128u * 1024);
  const auto& qp = r.ctrl->io_queues()[0];
  transfer x(r.dma, max, r.ctrl->page_bytes());
  for (std::size_t i = 0; i < max; ++i) x.data.host()[i] = std::byte(i * 7 + 3);
  auto w = qp.execute(nvme::make_write(1, 100, std::uint32_t(max / 512), x.prp.prp1, x.prp.prp2), 10 * seconds);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(qp.execute(nvme::make_flush(1), 10 * seconds).ok());
  std::vector<std::byte> independent(max);
  ram->read(100, std::uint32_t(max / 512), independent.data());
  EXPECT_EQ(std::memcmp(independent.data(), x.data.host(), max), 0) << "the namespace holds what was written";
  std::memset(x.data.host(), 0, max);
  ASSERT_TRUE(qp.execute(nvme::make_read(1, 100, std::uint32_t(max / 512), x.prp.prp1, x.prp.prp2), 10 * seconds).ok());
  EXPECT_EQ(std::memcmp(independent.data(), x.data.host(), max), 0);

  transfer big(r.dma, max + 4096, r.ctrl->page_bytes());
  const auto cmd = nvme::make_read(1, 0, std::uint32_t((max + 4096) / 512), big.prp.prp1, big.prp.prp2);
  const auto res = qp.execute(cmd, 10 * seconds);
  EXPECT_EQ(res.status, status::io_error);
  EXPECT_EQ(res.nvme_status.sc(), nvme::generic_status::invalid_field);
}

TEST(Controller, AnOutOfRangeReadThrowsAnErrorNamingQueueCommandAndLba) {
  auto ram = std::make_shared<host::ram_store>(512, 1024);
  host::controller_options co;
  co.io_queue_pairs = 2;
  rig r({ram}, emu_options(), co);
  const auto& qp = r.ctrl->io_queues()[1];
  transfer x(r.dma, 4096, 4096);
  const auto cmd = nvme::make_read(1, 1020, 8, x.prp.prp1, 0);
  std::uint64_t ticket = 0;
  ASSERT_EQ(qp.submit(cmd, ticket, detail::now_ns() + 10 * seconds), status::ok);
  const auto res = qp.wait(ticket, detail::now_ns() + 10 * seconds);
  try {
    host::throw_if_failed(res, host::context_of(cmd, 0, qp.qid(), qp.cid_of(ticket)), "read");
    FAIL() << "expected an nvme_error";
  } catch (const nvme_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("queue 2"), std::string::npos) << what;
    EXPECT_NE(what.find("LBA 1020 +8"), std::string::npos) << what;
    EXPECT_NE(what.find("LBA out of range"), std::string::npos) << what;
    EXPECT_EQ(e.status_code(), nvme::generic_status::lba_out_of_range);
    EXPECT_EQ(e.context().queue, 2u);
    EXPECT_EQ(e.context().lba, 1020u);
  }
  // A bad namespace id is refused too, and the queue keeps working.
  EXPECT_EQ(qp.execute(nvme::make_read(9, 0, 1, x.prp.prp1, 0), 10 * seconds).nvme_status.sc(),
            nvme::generic_status::invalid_namespace);
  EXPECT_TRUE(qp.execute(nvme::make_read(1, 0, 8, x.prp.prp1, 0), 10 * seconds).ok());
}

TEST(Controller, ACommandThatNeverCompletesTimesOutAndFailsOnlyItsQueue) {
  auto ram = std::make_shared<host::ram_store>(512, 1024);
  host::controller_options co;
  co.io_queue_pairs = 2;
  rig r({ram}, emu_options(), co);
  host::fault_rule drop;
  drop.match.qid = 1;
  drop.action.effect = host::fault_effect::drop;
  r.emu.faults().add(drop);
  transfer x(r.dma, 4096, 4096);
  const auto& q1 = r.ctrl->io_queues()[0];
  const auto cmd = nvme::make_read(1, 8, 8, x.prp.prp1, 0);
  const auto res = q1.execute(cmd, seconds / 5);
  EXPECT_EQ(res.status, status::timeout);
  EXPECT_THROW(host::throw_if_failed(res, host::context_of(cmd, 0, 1, 0), "read"), timeout_error);
  EXPECT_EQ(q1.execute(cmd, seconds).status, status::queue_failed);
  EXPECT_TRUE(r.ctrl->io_queues()[1].execute(cmd, 10 * seconds).ok()) << "other queues are unaffected";
}

TEST(Controller, AControllerThatNeverBecomesReadyIsATimeoutNotAHang) {
  // Register memory with a plausible CAP (TO = 1: 500 ms) and nobody behind it.
  host::heap_memory heap;
  auto regs = heap.allocate(0x2000, memory_kind::host);
  host::bar_view bar(regs.host(), regs.device(), regs.size());
  nvme::cap_register cap{};
  cap.set_mqes(1023).set_cqr(true).set_to(1).set_css(1);
  bar.write64(nvme::reg::cap, cap.raw);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(host::controller(bar, heap, {}), timeout_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Controller, BadOptionsAreRefusedWithTheirNames) {
  auto ram = std::make_shared<host::ram_store>(512, 1024);
  host::heap_memory heap;
  host::emulated_iommu iommu;
  host::iommu_memory dma(heap, iommu);
  host::emulated_controller emu(heap, iommu, {ram}, emu_options());
  host::controller_options co;
  co.queue_depth = 1;
  try {
    host::controller c(emu.bar(), dma, co);
    FAIL();
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("queue_depth"), std::string::npos) << e.what();
  }
}
