// SPDX-License-Identifier: Apache-2.0
// Throughput of the emulated controller with CPU threads as clients: a short smoke run for CI,
// the timing model's IOPS cap, and a configurable long run for a many-core machine, e.g.
//   BAM_EMU_WORKERS=8 BAM_EMU_CLIENTS=8 BAM_EMU_BYTES=4096 emulated_throughput_test
//     --gtest_also_run_disabled_tests --gtest_filter=*Configured*
// (also BAM_EMU_QUEUES, BAM_EMU_DEPTH, BAM_EMU_SYNTHETIC=1, BAM_EMU_VERIFY=1, BAM_EMU_RAM_MIB,
// BAM_EMU_SECONDS).
#include "tests/host/emulator_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

namespace {
using namespace bam;

struct throughput_config {
  unsigned workers = 1;            ///< emulator I/O threads
  unsigned clients = 1;            ///< submitting threads
  unsigned queues_per_client = 2;  ///< queue pairs each client keeps busy
  unsigned depth = 64;             ///< commands in flight per queue pair
  std::uint32_t bytes = 4096;      ///< per read (multiple of 512)
  bool synthetic = false;          ///< synthetic namespace instead of RAM
  bool verify = true;              ///< clients check every byte they read
  std::uint64_t ram_bytes = 16ull << 20;  ///< filled with synthetic content before the run
  double seconds = 0.2;
  std::optional<host::timing_model::options> timing;
};

struct throughput_result {
  std::uint64_t commands = 0;
  std::uint64_t errors = 0;
  double seconds = 0;  ///< from the first submission to the last counted completion
  [[nodiscard]] double iops() const { return seconds > 0 ? double(commands) / seconds : 0; }
};

constexpr std::uint64_t seed = 1;

/// Random reads at queue depth `depth` on every queue until the time is up.
throughput_result measure(const throughput_config& cfg) {
  auto opts = test::test_options();
  opts.n_workers = cfg.workers;
  opts.idle_spin_ns = 20'000;
  opts.max_io_queues = std::uint16_t(cfg.clients * cfg.queues_per_client);
  opts.timing = cfg.timing;
  std::shared_ptr<host::namespace_store> ns;
  if (cfg.synthetic) {
    ns = std::make_shared<host::synthetic_store>(host::synthetic_store::options{
        .block_size = 512, .n_blocks = (1ull << 40) / 512, .seed = seed});
  } else {
    // Filled first: reads then come from DRAM, not the shared zero page of an untouched
    // mapping, and are verified like synthetic ones.
    ns = std::make_shared<host::ram_store>(512, cfg.ram_bytes / 512);
    host::fill_synthetic(*ns, seed, cfg.clients + cfg.workers);
  }
  const std::uint64_t slots = ns->n_blocks() / (cfg.bytes / 512);
  test::emulator emu({ns}, opts);
  emu.driver().enable();
  std::vector<test::raw_nvme_driver::queue_pair> queues;
  for (unsigned q = 0; q < cfg.clients * cfg.queues_per_client; ++q) {
    queues.push_back(emu.driver().create_io_pair(std::uint16_t(q + 1), cfg.depth + 1));
  }

  /// What one client saw: reads completed while the run lasted, between its first
  /// submission and the last completion it counted.
  struct client_result {
    std::uint64_t done = 0, bad = 0;
    std::chrono::steady_clock::time_point first, last;
  };
  std::vector<client_result> results(cfg.clients);
  std::barrier start(cfg.clients + 1);
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (unsigned c = 0; c < cfg.clients; ++c) {
    clients.emplace_back([&, c] {
      test::raw_nvme_driver drv(emu.ctrl(), emu.dma());
      std::vector<dma_buffer> buffers;
      // The LBA each buffer slot was read from; completions come in order on a queue, so
      // command id k owns slot k % depth until it completes.
      std::vector<std::uint64_t> lba_of(std::size_t{cfg.queues_per_client} * cfg.depth);
      std::uint64_t rng = 0x9e3779b97f4a7c15ull * (c + 1);
      const auto next_read = [&](unsigned q, std::uint16_t cid) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;  // xorshift64
        const std::uint64_t lba = (rng % slots) * (cfg.bytes / 512);
        lba_of[q * cfg.depth + cid % cfg.depth] = lba;
        const dma_buffer& buf = buffers[q];
        const std::size_t at = std::size_t(cid % cfg.depth) * cfg.bytes;
        const std::size_t first = std::min<std::size_t>(cfg.bytes, 4096 - at % 4096);
        return nvme::make_read(1, lba, cfg.bytes / 512, buf.bus_at(at),
                               first < cfg.bytes ? buf.bus_at(at + first) : 0);
      };
      const unsigned first_q = c * cfg.queues_per_client;
      for (unsigned i = 0; i < cfg.queues_per_client; ++i) {
        buffers.push_back(drv.alloc(std::size_t{cfg.depth} * cfg.bytes));
      }
      start.arrive_and_wait();
      client_result& mine = results[c];
      mine.first = mine.last = std::chrono::steady_clock::now();
      for (unsigned i = 0; i < cfg.queues_per_client; ++i) {
        auto& q = queues[first_q + i];
        for (unsigned k = 0; k < cfg.depth; ++k) drv.enqueue(q, next_read(i, q.next_cid));
        drv.ring_sq(q);
      }
      std::size_t in_flight = std::size_t{cfg.queues_per_client} * cfg.depth;
      // Until the time is up, replace every completed read; then let the last ones land
      // before the buffers they write into are freed.
      while (in_flight > 0) {
        const bool more = !stop.load(std::memory_order_relaxed);
        for (unsigned i = 0; i < cfg.queues_per_client; ++i) {
          auto& q = queues[first_q + i];
          const std::size_t n = drv.drain(q, [&](const nvme::completion& cpl) {
            const unsigned slot = cpl.cid() % cfg.depth;
            mine.bad += !cpl.status().ok() ||
                   (cfg.verify &&
                    synthetic_mismatch(seed, lba_of[i * cfg.depth + slot] * 512,
                                       buffers[i].host() + std::size_t{slot} * cfg.bytes,
                                       cfg.bytes) != cfg.bytes);
          });
          // Every completion counts, also those landing after the time is up, so a run on a
          // loaded machine still completes (and checks) at least the first reads it issued.
          if (n != 0) {
            mine.done += n;
            mine.last = std::chrono::steady_clock::now();
          }
          if (more) {
            for (std::size_t k = 0; k < n; ++k) drv.enqueue(q, next_read(i, q.next_cid));
            if (n != 0) drv.ring_sq(q);
          } else {
            in_flight -= n;
          }
        }
      }
    });
  }
  start.arrive_and_wait();
  std::this_thread::sleep_for(std::chrono::duration<double>(cfg.seconds));
  stop.store(true);
  for (auto& t : clients) t.join();
  throughput_result r;
  auto first = results[0].first, last = results[0].last;
  for (const auto& m : results) {
    r.commands += m.done;
    r.errors += m.bad;
    first = std::min(first, m.first);
    last = std::max(last, m.last);
  }
  r.seconds = std::chrono::duration<double>(last - first).count();
  return r;
}

void print(const char* what, const throughput_config& cfg, const throughput_result& r) {
  std::printf("%s: %u workers, %u clients x %u queues x QD %u, %u-byte %s reads%s: %.2f M IOPS, "
              "%.2f GB/s\n",
              what, cfg.workers, cfg.clients, cfg.queues_per_client, cfg.depth, cfg.bytes,
              cfg.synthetic ? "synthetic" : "RAM", cfg.verify ? ", verified" : "", r.iops() / 1e6,
              r.iops() * cfg.bytes / 1e9);
}

TEST(EmulatedThroughput, SmokeRunCompletesEveryRead) {
  for (const bool synthetic : {false, true}) {
    throughput_config cfg;
    cfg.synthetic = synthetic;
    const auto r = measure(cfg);
    print("smoke", cfg, r);
    EXPECT_GT(r.commands, 0u);
    EXPECT_EQ(r.errors, 0u);
  }
}

TEST(EmulatedThroughput, TimingModelCapsIops) {
  throughput_config cfg;
  cfg.seconds = 0.3;
  cfg.verify = false;
  // 20 k IOPS, 50 µs latency: the queues could go far faster, the model must not let them.
  cfg.timing = host::timing_model::options{
      {"capped", 50'000, 50'000, 20'000, 20'000, 10'000'000'000, 10'000'000'000}, 1, 1 << 20};
  const auto r = measure(cfg);
  print("capped at 20k IOPS", cfg, r);
  // Completions are never earlier than modelled: the drive serves one read per 50 µs, so no
  // more than that can complete between the first submission and the last completion.
  // (How close to the cap it gets depends on the machine's load; that is printed, not tested.)
  EXPECT_LE(double(r.commands), 20'000 * r.seconds + 1);
}

unsigned env_or(const char* name, unsigned fallback) {
  const char* v = std::getenv(name);
  return v ? unsigned(std::strtoul(v, nullptr, 10)) : fallback;
}

TEST(EmulatedThroughput, DISABLED_Configured) {
  throughput_config cfg;
  cfg.workers = env_or("BAM_EMU_WORKERS", 8);
  cfg.clients = env_or("BAM_EMU_CLIENTS", 8);
  cfg.queues_per_client = env_or("BAM_EMU_QUEUES", 2);
  cfg.depth = env_or("BAM_EMU_DEPTH", 128);
  cfg.bytes = env_or("BAM_EMU_BYTES", 4096);
  cfg.synthetic = env_or("BAM_EMU_SYNTHETIC", 0) != 0;
  cfg.verify = env_or("BAM_EMU_VERIFY", 0) != 0;
  cfg.ram_bytes = std::uint64_t(env_or("BAM_EMU_RAM_MIB", 4096)) << 20;
  cfg.seconds = env_or("BAM_EMU_SECONDS", 3);
  const auto r = measure(cfg);
  print("configured", cfg, r);
  EXPECT_EQ(r.errors, 0u);
}

}  // namespace
