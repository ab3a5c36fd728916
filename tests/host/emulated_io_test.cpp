// SPDX-License-Identifier: Apache-2.0
// NVM I/O through the emulated controller with raw entries: every PRP shape verified byte for
// byte, MDTS, LBA range, namespace and opcode errors, IOMMU faults, a full completion queue,
// each namespace kind, fault injection and the timing model.
#include <bam/host/emulator/file_store.hpp>
#include "tests/host/emulator_fixture.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

namespace {
using namespace bam;
using bam::test::emulator;
using bam::test::generic;
using bam::test::status_of;
namespace gs = nvme::generic_status;
using namespace std::chrono_literals;

constexpr std::uint64_t ram_seed = 11;
constexpr std::uint32_t ram_blocks = 4096;  // of 512 bytes: 2 MiB

/// One RAM namespace (nsid 1, 512-byte blocks, synthetic content) and an I/O pair of 16.
class EmulatedIo : public ::testing::Test {
 protected:
  explicit EmulatedIo(host::emulated_controller::options opts = test::test_options())
      : emu_({test::filled_ram(512, ram_blocks, ram_seed)}, std::move(opts)) {
    drv().enable();
    q_ = drv().create_io_pair(1, 16);
  }
  test::raw_nvme_driver& drv() { return emu_.driver(); }
  host::namespace_store& store() { return emu_.ctrl().store(1); }
  nvme::completion run(const nvme::command& cmd) { return drv().execute(q_, cmd); }
  /// Writes PRP entry `slot` of the list memory `list`.
  static void write_list(dma_buffer& list, std::size_t slot, std::uint64_t value) {
    std::memcpy(list.host() + slot * 8, &value, 8);
  }
  /// Checks that `bytes` at `p` are namespace bytes from block `lba` on.
  static void expect_ram_content(const std::byte* p, std::uint64_t lba, std::size_t bytes) {
    EXPECT_EQ(synthetic_mismatch(ram_seed, lba * 512, p, bytes), bytes) << "block " << lba;
  }

  emulator emu_;
  test::raw_nvme_driver::queue_pair q_;
};

TEST_F(EmulatedIo, ReadAndWriteThroughPrp1) {
  auto buf = drv().alloc(4096);
  auto c = run(nvme::make_read(1, 7, 1, buf.bus_at(0), 0));
  ASSERT_TRUE(c.status().ok());
  EXPECT_EQ(c.sq_id(), 1u);
  expect_ram_content(buf.host(), 7, 512);
  // Write 2 blocks from an offset inside the page, then read them from the store.
  synthetic_fill(99, 0, buf.host() + 1024, 1024);
  ASSERT_TRUE(run(nvme::make_write(1, 100, 2, buf.bus_at(1024), 0)).status().ok());
  std::vector<std::byte> back(1024);
  store().read(100, 2, back.data());
  EXPECT_EQ(synthetic_mismatch(99, 0, back.data(), 1024), 1024u);
}

TEST_F(EmulatedIo, Prp1OffsetSpillsIntoPrp2) {
  auto a = drv().alloc(4096);
  auto b = drv().alloc(4096);
  // 8 blocks starting 3 KiB into a's page: 1 KiB there, 3 KiB at PRP2.
  ASSERT_TRUE(run(nvme::make_read(1, 40, 8, a.bus_at(3072), b.bus_at(0))).status().ok());
  expect_ram_content(a.host() + 3072, 40, 1024);
  expect_ram_content(b.host(), 42, 3072);
  EXPECT_EQ(status_of(run(nvme::make_read(1, 40, 8, a.bus_at(3072), b.bus_at(512)))),
            generic(gs::invalid_prp_offset));
  EXPECT_EQ(status_of(run(nvme::make_read(1, 40, 1, a.bus_at(3073), 0))),
            generic(gs::invalid_prp_offset));
}

TEST_F(EmulatedIo, PrpListsAndChainedListsByteForByte) {
  // 128 KiB (MDTS) into 32 scattered pages: PRP1 + a list of 31 entries that starts 3 slots
  // before the end of its page, so the last slot chains to a second list page.
  std::vector<dma_buffer> pages;
  for (int i = 0; i < 32; ++i) pages.push_back(drv().alloc(4096));
  auto list = drv().alloc(2 * 4096);
  const std::size_t first_slot = 512 - 3;
  write_list(list, first_slot, pages[1].bus_at(0));
  write_list(list, first_slot + 1, pages[2].bus_at(0));
  write_list(list, first_slot + 2, list.bus_at(4096));  // chain
  for (int i = 3; i < 32; ++i) write_list(list, 512 + (i - 3), pages[i].bus_at(0));
  const std::uint64_t prp2 = list.bus_at(first_slot * 8);
  ASSERT_TRUE(run(nvme::make_read(1, 1000, 256, pages[0].bus_at(0), prp2)).status().ok());
  for (int i = 0; i < 32; ++i) expect_ram_content(pages[i].host(), 1000 + 8 * i, 4096);

  // The same shape for a write: new content lands in the store in page order.
  for (int i = 0; i < 32; ++i) synthetic_fill(123, i * 4096ull, pages[i].host(), 4096);
  ASSERT_TRUE(run(nvme::make_write(1, 2000, 256, pages[0].bus_at(0), prp2)).status().ok());
  std::vector<std::byte> back(128 * 1024);
  store().read(2000, 256, back.data());
  EXPECT_EQ(synthetic_mismatch(123, 0, back.data(), back.size()), back.size());
}

TEST_F(EmulatedIo, TransferLimitIsMdts) {
  auto big = drv().alloc(256 * 1024 + 4096);
  auto list = drv().alloc(4096);
  for (int i = 1; i < 65; ++i) write_list(list, i - 1, big.bus_at(i * 4096ull));
  // 128 KiB passes; one block more is an invalid field.
  EXPECT_TRUE(run(nvme::make_read(1, 0, 256, big.bus_at(0), list.bus_at(0))).status().ok());
  EXPECT_EQ(status_of(run(nvme::make_read(1, 0, 257, big.bus_at(0), list.bus_at(0)))),
            generic(gs::invalid_field));
  EXPECT_EQ(status_of(run(nvme::make_write(1, 0, 512, big.bus_at(0), list.bus_at(0)))),
            generic(gs::invalid_field));
}

TEST_F(EmulatedIo, RangeNamespaceAndOpcodeErrors) {
  auto buf = drv().alloc(4096);
  const std::uint64_t p = buf.bus_at(0);
  EXPECT_TRUE(run(nvme::make_read(1, ram_blocks - 1, 1, p, 0)).status().ok());
  EXPECT_EQ(status_of(run(nvme::make_read(1, ram_blocks - 1, 2, p, 0))), generic(gs::lba_out_of_range));
  EXPECT_EQ(status_of(run(nvme::make_read(1, ram_blocks, 1, p, 0))), generic(gs::lba_out_of_range));
  EXPECT_EQ(status_of(run(nvme::make_write(1, ~0ull, 1, p, 0))), generic(gs::lba_out_of_range));
  EXPECT_EQ(status_of(run(nvme::make_read(0, 0, 1, p, 0))), generic(gs::invalid_namespace));
  EXPECT_EQ(status_of(run(nvme::make_read(2, 0, 1, p, 0))), generic(gs::invalid_namespace));
  EXPECT_EQ(status_of(run(nvme::make_flush(2))), generic(gs::invalid_namespace));
  EXPECT_TRUE(run(nvme::make_flush(1)).status().ok());
  EXPECT_TRUE(run(nvme::make_flush(0xffffffff)).status().ok());
  EXPECT_EQ(status_of(run(nvme::make_command(0x7f, 1))), generic(gs::invalid_opcode));
  auto fused = nvme::make_read(1, 0, 1, p, 0);
  fused.cdw0 |= 1u << 8;
  EXPECT_EQ(status_of(run(fused)), generic(gs::invalid_field));
}

TEST_F(EmulatedIo, AddressesOutsideTheIommuAreDataTransferErrors) {
  auto buf = drv().alloc(4096);
  auto list = drv().alloc(4096);
  // A host pointer is not a bus address: the controller must not write through it.
  std::memset(buf.host(), 0x5a, 4096);
  const auto host_ptr = reinterpret_cast<std::uint64_t>(buf.host());
  EXPECT_EQ(status_of(run(nvme::make_read(1, 0, 8, host_ptr, 0))), generic(gs::data_transfer_error));
  EXPECT_EQ(buf.host()[0], std::byte{0x5a});
  EXPECT_EQ(status_of(run(nvme::make_read(1, 0, 8, buf.bus_at(2048), buf.bus_at(0) + 4096))),
            generic(gs::data_transfer_error));  // PRP2 on the guard page
  write_list(list, 0, buf.bus_at(0));
  write_list(list, 1, 0x1234000);
  EXPECT_EQ(status_of(run(nvme::make_read(1, 0, 24, buf.bus_at(0), list.bus_at(0)))),
            generic(gs::data_transfer_error));
  EXPECT_EQ(status_of(run(nvme::make_write(1, 0, 8, 0, 0))), generic(gs::data_transfer_error));
  // A freed buffer is unmapped too.
  const std::uint64_t stale = drv().alloc(4096).bus_at(0);
  EXPECT_EQ(status_of(run(nvme::make_read(1, 0, 1, stale, 0))), generic(gs::data_transfer_error));
  EXPECT_EQ(emu_.ctrl().fatal_reason(), nullptr);  // data errors are not controller faults
}

TEST_F(EmulatedIo, FullCompletionQueueHoldsCompletionsBack) {
  auto pair = drv().make_pair(2, 4);  // CQ of 4 entries holds at most 3 completions
  auto sq = drv().make_pair(2, 16);
  ASSERT_TRUE(drv().admin(nvme::make_create_io_cq(2, 4, pair.cq.bus_at(0))).status().ok());
  ASSERT_TRUE(drv().admin(nvme::make_create_io_sq(2, 16, sq.sq.bus_at(0), 2)).status().ok());
  pair.sq = std::move(sq.sq);
  pair.entries = 4;
  // Submit 8 reads (the SQ has 16 entries; the driver's queue_pair wraps at 4, so ring by hand).
  auto buf = drv().alloc(8 * 512);
  for (std::uint16_t i = 0; i < 8; ++i) {
    auto cmd = nvme::make_read(1, i, 1, buf.bus_at(i * 512ull), 0);
    cmd.set_cid(100 + i);
    std::memcpy(pair.sq.host() + i * 64ull, &cmd, 64);
  }
  drv().ring(2, false, 8);
  const auto posted = [&] {
    int n = 0;
    while (n < 4 && drv().peek(pair, std::uint32_t(n), true)) ++n;
    return n;
  };
  ASSERT_TRUE(test::eventually([&] { return posted() == 3; }));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(posted(), 3);  // entry 3 would make the queue look empty: never written
  EXPECT_EQ(emu_.ctrl().queue_stats(2)->commands, 8u);
  // Consuming completions lets the held ones through, each exactly once.
  std::set<std::uint16_t> cids;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (cids.size() < 8 && std::chrono::steady_clock::now() < deadline) {
    if (auto c = drv().poll(pair)) {
      EXPECT_TRUE(c->status().ok());
      EXPECT_TRUE(cids.insert(c->cid()).second);
    }
  }
  EXPECT_EQ(cids.size(), 8u);
  EXPECT_EQ(*cids.begin(), 100u);
  for (int i = 0; i < 8; ++i) expect_ram_content(buf.host() + i * 512, i, 512);
}

TEST_F(EmulatedIo, InvalidDoorbellValuesAreIgnored) {
  drv().ring(1, false, 16);  // tail beyond a 16-entry SQ
  auto buf = drv().alloc(512);
  EXPECT_TRUE(test::eventually([&] { return emu_.ctrl().invalid_doorbell_writes() == 1; }));
  drv().ring(1, false, 0);
  EXPECT_TRUE(run(nvme::make_read(1, 0, 1, buf.bus_at(0), 0)).status().ok());
  EXPECT_EQ(emu_.ctrl().queue_stats(1)->commands, 1u);
}

TEST_F(EmulatedIo, CountersPerQueueAndInTotal) {
  auto buf = drv().alloc(4096);
  ASSERT_TRUE(run(nvme::make_read(1, 0, 8, buf.bus_at(0), 0)).status().ok());
  ASSERT_TRUE(run(nvme::make_write(1, 0, 2, buf.bus_at(0), 0)).status().ok());
  (void)run(nvme::make_read(1, ram_blocks, 1, buf.bus_at(0), 0));
  const auto q = *emu_.ctrl().queue_stats(1);
  EXPECT_EQ(q.commands, 3u);
  EXPECT_EQ(q.bytes, 10u * 512);
  EXPECT_EQ(q.errors, 1u);
  const auto total = emu_.ctrl().stats();
  EXPECT_EQ(total.commands, 3u + 2u);  // and the two admin commands that created the queues
  EXPECT_EQ(total.errors, 1u);
}

TEST(EmulatedNamespaces, SyntheticTerabyteReadsVerifiedAndWritesReadBack) {
  constexpr std::uint64_t seed = 2024;
  emulator emu({std::make_shared<host::synthetic_store>(host::synthetic_store::options{
      .block_size = 512, .n_blocks = (1ull << 40) / 512, .seed = seed, .overlay_blocks = 256})});
  auto& drv = emu.driver();
  drv.enable();
  auto q = drv.create_io_pair(1, 32);
  auto buf = drv.alloc(4096);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t lba = rng() % ((1ull << 31) - 8);
    ASSERT_TRUE(drv.execute(q, nvme::make_read(1, lba, 8, buf.bus_at(0), 0)).status().ok());
    ASSERT_EQ(synthetic_mismatch(seed, lba * 512, buf.host(), 4096), 4096u) << "lba " << lba;
  }
  const std::uint64_t lba = (1ull << 31) - 3;  // the end of the terabyte
  synthetic_fill(5, 0, buf.host(), 1536);
  ASSERT_TRUE(drv.execute(q, nvme::make_write(1, lba, 3, buf.bus_at(0), 0)).status().ok());
  std::memset(buf.host(), 0, 4096);
  ASSERT_TRUE(drv.execute(q, nvme::make_read(1, lba - 1, 4, buf.bus_at(0), 0)).status().ok());
  EXPECT_EQ(synthetic_mismatch(seed, (lba - 1) * 512, buf.host(), 512), 512u);
  EXPECT_EQ(synthetic_mismatch(5, 0, buf.host() + 512, 1536), 1536u);
  // Past the overlay's capacity a write completes with Capacity Exceeded.
  for (std::uint64_t b = 0; b < 253; ++b) {
    ASSERT_TRUE(drv.execute(q, nvme::make_write(1, b * 10, 1, buf.bus_at(0), 0)).status().ok());
  }
  EXPECT_EQ(status_of(drv.execute(q, nvme::make_write(1, 7, 1, buf.bus_at(0), 0))),
            generic(gs::capacity_exceeded));
}

TEST(EmulatedNamespaces, FileNamespaceMatchesTheFile) {
  const std::string path = std::filesystem::temp_directory_path().string() + "/bam_emu_" +
                           std::to_string(::getpid());
  {
    auto file = std::make_shared<host::file_store>(host::file_store::options{
        .path = path, .block_size = 4096, .n_blocks = 64, .create = true});
    emulator emu({file});
    auto& drv = emu.driver();
    drv.enable();
    auto q = drv.create_io_pair(1, 8);
    auto buf = drv.alloc(3 * 4096);
    synthetic_fill(31, 0, buf.host(), 3 * 4096);
    ASSERT_TRUE(drv.execute(q, nvme::make_write(1, 10, 2, buf.bus_at(0), buf.bus_at(4096))).status().ok());
    ASSERT_TRUE(drv.execute(q, nvme::make_flush(1)).status().ok());
    std::memset(buf.host(), 0, 3 * 4096);
    ASSERT_TRUE(drv.execute(q, nvme::make_read(1, 10, 2, buf.bus_at(0), buf.bus_at(4096))).status().ok());
    EXPECT_EQ(synthetic_mismatch(31, 0, buf.host(), 8192), 8192u);
    std::vector<std::byte> raw(8192);
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pread(fd, raw.data(), raw.size(), 10 * 4096), 8192);
    ::close(fd);
    EXPECT_EQ(synthetic_mismatch(31, 0, raw.data(), raw.size()), raw.size());
  }
  std::filesystem::remove(path);
}

TEST_F(EmulatedIo, FaultStatusAndDropReachTheDriver) {
  auto buf = drv().alloc(4096);
  host::fault_rule media;
  media.match.opcode = std::uint8_t(nvme::io_opcode::read);
  media.match.lba_first = 500;
  media.match.lba_last = 599;
  media.action = {host::fault_effect::status, 0, nvme::status_type::media,
                  nvme::media_status::unrecovered_read_error};
  const auto id = emu_.ctrl().faults().add(media);
  std::memset(buf.host(), 0x77, 4096);
  const auto failed = run(nvme::make_read(1, 596, 8, buf.bus_at(0), 0));
  EXPECT_EQ(status_of(failed), std::pair(nvme::status_type::media, nvme::media_status::unrecovered_read_error));
  EXPECT_EQ(buf.host()[0], std::byte{0x77});  // not executed
  EXPECT_TRUE(run(nvme::make_read(1, 600, 8, buf.bus_at(0), 0)).status().ok());
  EXPECT_EQ(emu_.ctrl().faults().hits(id), 1u);
  emu_.ctrl().faults().remove(id);

  host::fault_rule drop;
  drop.match.every_nth = 2;
  drop.action = {host::fault_effect::drop};
  emu_.ctrl().faults().add(drop);
  EXPECT_TRUE(run(nvme::make_read(1, 0, 1, buf.bus_at(0), 0)).status().ok());
  EXPECT_THROW(drv().execute(q_, nvme::make_read(1, 0, 1, buf.bus_at(0), 0), 200ms), timeout_error);
  EXPECT_EQ(emu_.ctrl().stats().dropped, 1u);
  emu_.ctrl().faults().clear();
  EXPECT_TRUE(run(nvme::make_read(1, 0, 1, buf.bus_at(0), 0)).status().ok());
}

TEST_F(EmulatedIo, DelayedCompletionsArriveLateAndOutOfOrder) {
  auto buf = drv().alloc(4096);
  host::fault_rule slow;
  slow.match.lba_first = slow.match.lba_last = 42;
  slow.action = {host::fault_effect::delay, 30'000'000};  // 30 ms
  emu_.ctrl().faults().add(slow);
  const auto t0 = std::chrono::steady_clock::now();
  const auto slow_cid = drv().submit(q_, nvme::make_read(1, 42, 1, buf.bus_at(0), 0));
  const auto fast_cid = drv().submit(q_, nvme::make_read(1, 43, 1, buf.bus_at(512), 0));
  const auto first = drv().wait(q_);
  const auto second = drv().wait(q_);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(first.cid(), fast_cid);
  EXPECT_EQ(second.cid(), slow_cid);
  EXPECT_GE(elapsed, 30ms);
  EXPECT_EQ(second.sq_head(), 2u);  // the head reported when posted
  expect_ram_content(buf.host(), 42, 1024);
}

TEST(EmulatedAdminFaults, AdminCommandsCanFailToo) {
  emulator emu({std::make_shared<host::ram_store>(512, 8)});
  host::fault_rule rule;
  rule.match.queue = host::command_set::admin;
  rule.match.opcode = std::uint8_t(nvme::admin_opcode::identify);
  rule.action = {host::fault_effect::status, 0, nvme::status_type::generic, gs::internal_error};
  emu.ctrl().faults().add(rule);
  emu.driver().enable();
  auto page = emu.driver().alloc(4096);
  EXPECT_EQ(status_of(emu.driver().admin(nvme::make_identify(nvme::identify_cns::controller, 0,
                                                             page.bus_at(0)))),
            generic(gs::internal_error));
  EXPECT_TRUE(emu.driver().admin(nvme::make_get_number_of_queues()).status().ok());
}

/// A deliberately slow drive, so that "not before" is measurable on any machine.
constexpr host::drive_profile slow_drive{"slow test drive", 2'000'000, 3'000'000, 2'000, 1'000,
                                         100'000'000, 50'000'000};

TEST(EmulatedTiming, CompletionsAreNeverEarlierThanModelled) {
  auto opts = test::test_options();
  opts.timing = host::timing_model::options{slow_drive, 1, 128 * 1024};
  emulator emu({test::filled_ram(512, 1024, ram_seed)}, opts);
  auto& drv = emu.driver();
  drv.enable();
  auto q = drv.create_io_pair(1, 64);
  auto buf = drv.alloc(64 * 4096);
  // Queue depth 1: each read takes at least the 2 ms latency, each write 3 ms.
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(drv.execute(q, nvme::make_read(1, i, 1, buf.bus_at(0), 0)).status().ok());
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 2ms);
  }
  const auto w0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(drv.execute(q, nvme::make_write(1, 0, 1, buf.bus_at(0), 0)).status().ok());
  EXPECT_GE(std::chrono::steady_clock::now() - w0, 3ms);
  // Deep queue: 60 reads at once take at least 60 / 2000 IOPS = 30 ms.
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 60; ++i) drv.submit(q, nvme::make_read(1, i, 8, buf.bus_at(i * 4096ull), 0));
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(drv.wait(q).status().ok());
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(elapsed, 30ms);
  const double iops = 60.0 / std::chrono::duration<double>(elapsed).count();
  std::printf("modelled 2000 IOPS, measured %.0f IOPS at queue depth 60\n", iops);
}

TEST(EmulatedTiming, PresetByNameHoldsEachReadForItsLatency) {
  // Queue depth 1 from a CPU thread: every read waits at least the preset's read latency, so
  // N reads take at least N times it (a lower bound only: a loaded machine is never too fast).
  for (const auto& [spec, latency] : {std::pair{"980pro", 45us}, std::pair{"optane-p5800x:4", 5us}}) {
    auto opts = test::test_options();
    opts.timing = host::drive_array(spec);
    emulator emu({test::filled_ram(512, 1024, ram_seed)}, opts);
    auto& drv = emu.driver();
    drv.enable();
    auto q = drv.create_io_pair(1, 16);
    auto buf = drv.alloc(4096);
    constexpr int reads = 200;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reads; ++i) {
      ASSERT_TRUE(drv.execute(q, nvme::make_read(1, (i * 8) % 1024, 8, buf.bus_at(0), 0)).status().ok());
    }
    EXPECT_GE(std::chrono::steady_clock::now() - t0, reads * latency) << spec;
  }
}

}  // namespace
