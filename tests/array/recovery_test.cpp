// SPDX-License-Identifier: Apache-2.0
// bam::array when the controller loses commands, on CPU threads running the GPU's code: a lost
// read fails only the access waiting on it, the cache takes the pair out of service and recovers
// it by itself, and once the faults stop every access succeeds again; a lost write-back keeps
// its page dirty, and flush() afterwards leaves every completed store on the namespace.
#include "tests/array/array_rig.hpp"

#include <bam/host/emulator/fault_plan.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/synthetic.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

namespace {

using namespace bam;
using test::on_threads;
using test::rig;
using test::small_cache;

/// Waits (bounded) until the cache reports a recovery; returns every event seen.
std::vector<recovery_event> await_recoveries(page_cache& cache) {
  std::vector<recovery_event> events;
  for (int i = 0; i < 500 && events.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    for (const auto& e : cache.take_recoveries()) events.push_back(e);
  }
  return events;
}

host::fault_rule drop_rule(nvme::io_opcode op, double probability) {
  host::fault_rule rule;
  rule.match.opcode = std::uint8_t(op);
  rule.match.probability = probability;
  rule.match.seed = 7;
  rule.action.effect = host::fault_effect::drop;
  return rule;
}

}  // namespace

TEST(Recovery, LostReadsFailOnlyTheirAccessesAndTheCacheRecoversByItself) {
  constexpr std::uint64_t seed = 5;
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 24, seed, 16});
  page_cache_options o = small_cache(4096, 32);
  o.timeout = std::chrono::milliseconds(50);
  rig r({{syn}}, o);
  auto& emu = *r.drives[0]->emu;
  const std::size_t rule = emu.faults().add(drop_rule(nvme::io_opcode::read, 0.02));
  const auto a = r.cache->map<std::uint64_t>(
      {.name = "words", .nsid = 1, .start_lba = 0, .count = (std::uint64_t{1} << 24) * 512 / 8});
  std::atomic<std::uint64_t> ok{0}, failed{0}, wrong{0};
  auto read_all = [&](unsigned threads, unsigned per_thread, std::uint64_t salt) {
    on_threads(threads, [&](unsigned t) {
      single_lane lane;
      for (unsigned k = 0; k < per_thread; ++k) {
        const std::uint64_t i = synthetic_word(salt + t, k) % a.size();
        std::uint64_t v = 0;
        if (a.load(lane, i, v) != status::ok) ++failed;
        else if (v != synthetic_word(seed, i)) ++wrong;
        else ++ok;
      }
    });
  };
  read_all(6, 400, 100);
  const std::uint64_t dropped = emu.stats().dropped;
  std::printf("with faults: %llu ok, %llu failed, %llu commands dropped\n", (unsigned long long)ok.load(),
              (unsigned long long)failed.load(), (unsigned long long)dropped);
  EXPECT_EQ(wrong.load(), 0u);
  ASSERT_GT(dropped, 0u) << "the rule must have fired for the test to mean anything";
  EXPECT_LE(failed.load(), dropped) << "a lost command fails only the one access waiting on it";
  EXPECT_THROW(r.cache->check(), timeout_error);

  emu.faults().remove(rule);
  const auto events = await_recoveries(*r.cache);
  ASSERT_FALSE(events.empty());
  for (const auto& e : events) {
    EXPECT_LT(e.recovery_ms, 1000.0);
    EXPECT_FALSE(e.controller_reset) << "deleting and re-creating the queues sufficed";
  }
  ok = failed = wrong = 0;
  read_all(6, 400, 200);
  EXPECT_EQ(failed.load(), 0u) << "the next accesses all succeed";
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(ok.load(), 6u * 400);
  EXPECT_NO_THROW(r.cache->check());
}

TEST(Recovery, LostWriteBacksKeepTheirPagesDirtyUntilAFlushWritesThem) {
  constexpr std::uint64_t n = std::uint64_t{1} << 17;
  auto ram = std::make_shared<host::ram_store>(512, n * 4 / 512);
  page_cache_options o = small_cache(4096, 16);
  o.timeout = std::chrono::milliseconds(50);
  rig r({{ram}}, o);
  auto& emu = *r.drives[0]->emu;
  const std::size_t rule = emu.faults().add(drop_rule(nvme::io_opcode::write, 0.05));
  const auto a = r.cache->map<std::uint32_t>({.name = "values", .nsid = 1, .start_lba = 0, .count = n});
  // Element i is stored by thread i % 4 only; a store that failed leaves the model alone.
  std::vector<std::uint8_t> stored(n, 0);
  on_threads(4, [&](unsigned t) {
    single_lane lane;
    for (std::uint64_t i = t; i < n; i += 4) {
      if (a.store(lane, i, std::uint32_t(i * 2654435761u) | 1u) == status::ok) stored[i] = 1;
    }
  });
  const std::uint64_t dropped = emu.stats().dropped;
  std::printf("%llu write-backs dropped\n", (unsigned long long)dropped);
  ASSERT_GT(dropped, 0u);
  emu.faults().remove(rule);
  try {
    r.cache->check();
  } catch (const error& e) {
    std::printf("expected: %s\n", e.what());
  }
  ASSERT_FALSE(await_recoveries(*r.cache).empty());
  r.cache->flush();
  std::vector<std::uint32_t> raw(n);
  ram->read(0, std::uint32_t(n * 4 / 512), reinterpret_cast<std::byte*>(raw.data()));
  std::uint64_t lost = 0, completed = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!stored[i]) continue;
    ++completed;
    lost += raw[i] != (std::uint32_t(i * 2654435761u) | 1u);
  }
  EXPECT_GT(completed, n * 9 / 10);
  EXPECT_EQ(lost, 0u) << "completed stores missing from the namespace after flush";
}
