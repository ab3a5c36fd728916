// SPDX-License-Identifier: Apache-2.0
// bam::array over bam::page_cache over the emulated controller, driven by CPU threads running
// the same code GPU warps run: every value read is checked against the namespace's content.
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/page_cache.hpp>
#include <bam/synthetic.hpp>

#include "tests/array/array_rig.hpp"
#include "tests/support/cpu_warp.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace bam;
using test::on_threads;
using test::rig;
using test::small_cache;

}  // namespace

TEST(Array, RandomReadsThroughASmallCacheReturnTheNamespacesWords) {
  constexpr std::uint64_t seed = 31;
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1ull << 32, seed, 16});
  rig r({{syn}}, small_cache(4096, 32));  // 128 KiB of cache over a 2 TiB namespace
  const std::uint64_t start_lba = 1000;
  const auto a = r.cache->map<std::uint64_t>(
      {.name = "words", .nsid = 1, .start_lba = start_lba, .count = 1ull << 30});  // 8 GiB mapped
  std::atomic<unsigned> wrong{0};
  on_threads(6, [&](unsigned t) {
    for (unsigned i = 0; i < 400; ++i) {
      const std::uint64_t idx = synthetic_word(t, i) % a.size();
      if (a[idx] != synthetic_word(seed, start_lba * 512 / 8 + idx)) ++wrong;
      // A neighbour on the same page: usually a hit.
      const std::uint64_t near = idx ^ 1;
      if (a[near] != synthetic_word(seed, start_lba * 512 / 8 + near)) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_NO_THROW(r.cache->check());
  const auto s = r.cache->stats(0);
  EXPECT_EQ(s.counts.accesses, 6u * 800);
  EXPECT_GT(s.counts.evictions, 0u) << "the cache is far smaller than the data";
  EXPECT_GE(s.counts.hits, 1u);
  EXPECT_EQ(s.counts.bytes_read, s.counts.misses * 4096 - 0 * s.counts.failures);
}

// Groups of lanes take the path GPU warps take: a group's misses on one controller are
// submitted as one round of consecutive tickets and copied by the whole group; pages striped
// over two controllers make two rounds. Lanes of a group often ask for pages their own group
// is evicting, which must retry rather than wait.
TEST(Array, LaneGroupsReadThroughASmallCacheOverTwoControllersAndEveryValueIsRight) {
  constexpr std::uint64_t seed = 77;
  auto s0 = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 24, seed, 16});
  auto s1 = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 24, seed + 1, 16});
  rig r({{s0}, {s1}}, small_cache(4096, 24));
  const auto a = r.cache->map<std::uint64_t>(
      {.name = "words", .nsid = 1, .start_lba = 0, .count = std::uint64_t{1} << 30});  // 8 GiB over the two
  const std::uint64_t per_page = 4096 / 8;
  auto expected = [&](std::uint64_t i) {  // page p lives on controller p % 2, at page p / 2 there
    const std::uint64_t page = i / per_page;
    return synthetic_word(seed + page % 2, (page / 2) * per_page + i % per_page);
  };
  std::atomic<unsigned> wrong{0}, failed{0};
  on_threads(3, [&](unsigned w) {
    test::cpu_warp<8>().run([&](auto& lane) {
      for (unsigned k = 0; k < 30; ++k) {
        // Half the lanes share a page with a neighbour: coalesced requests and hits mixed in.
        const unsigned key = lane.rank() < 4 ? lane.rank() : lane.rank() / 2;
        const std::uint64_t i = synthetic_word(w * 1000 + key, k) % a.size();
        std::uint64_t v = 0;
        if (a.load(lane, i, v) != status::ok) ++failed;
        else if (v != expected(i)) ++wrong;
      }
    });
  });
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_NO_THROW(r.cache->check());
  const auto s = r.cache->stats(0);
  EXPECT_EQ(s.counts.accesses, 3u * 8 * 30);
  EXPECT_GT(s.counts.evictions, 0u);
  EXPECT_GT(s.counts.coalesced, 0u);
}

TEST(Array, StoresAreWrittenBackAndFlushedToTheNamespace) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 16);
  rig r({{ram}}, small_cache(4096, 8));
  const auto a = r.cache->map<std::uint32_t>({.name = "values", .nsid = 1, .start_lba = 64, .count = 100'000});
  on_threads(4, [&](unsigned t) {
    for (std::uint64_t i = t; i < a.size(); i += 4) a.store(i, std::uint32_t(i * 2654435761u));
  });
  r.cache->flush();
  const auto s = r.cache->stats(0);
  EXPECT_GT(s.counts.write_backs, 0u);
  // Independent path: the namespace itself.
  std::vector<std::uint32_t> raw(100'000 + 128);
  ram->read(64, std::uint32_t(raw.size() * 4 / 512), reinterpret_cast<std::byte*>(raw.data()));
  for (std::uint64_t i = 0; i < 100'000; ++i) ASSERT_EQ(raw[i], std::uint32_t(i * 2654435761u)) << i;
}

TEST(Array, PagesStripedOverTwoControllersReadBackCorrectly) {
  auto a0 = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 20, 100, 16});
  auto a1 = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 20, 200, 16});
  rig r({{a0}, {a1}}, small_cache(8192, 16));
  const auto a = r.cache->map<std::uint64_t>({.name = "striped", .nsid = 1, .start_lba = 0, .count = 1u << 22});
  const std::uint64_t per_page = 8192 / 8;
  for (std::uint64_t i = 0; i < a.size(); i += 9973) {
    const std::uint64_t page = i / per_page;
    const std::uint64_t seed = page % 2 ? 200 : 100;
    const std::uint64_t word = ((page / 2) * 8192 + (i % per_page) * 8) / 8;
    ASSERT_EQ(a[i], synthetic_word(seed, word)) << "element " << i;
  }
  EXPECT_GT(r.drives[0]->emu->stats().commands, 0u);
  EXPECT_GT(r.drives[1]->emu->stats().commands, 0u);
}

TEST(Array, ConcurrentFetchAddsAllCount) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 14);
  rig r({{ram}}, small_cache(4096, 4));
  const auto a = r.cache->map<std::uint64_t>({.name = "counters", .nsid = 1, .start_lba = 0, .count = 4096});
  on_threads(6, [&](unsigned t) {
    for (unsigned i = 0; i < 500; ++i) a.fetch_add(synthetic_word(t, i) % a.size(), 1);
  });
  r.cache->flush();
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < a.size(); ++i) sum += a[i];
  EXPECT_EQ(sum, 6u * 500);
}

TEST(Array, PinnedPagesAndRangeReadsSeeTheSameWords) {
  constexpr std::uint64_t seed = 5;
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 20, seed, 16});
  rig r({{syn}}, small_cache(4096, 8));
  const auto a = r.cache->map<std::uint64_t>({.name = "w", .nsid = 1, .start_lba = 0, .count = 1u << 20});
  single_lane g;
  {
    const auto p = a.pin_page(g, 5000);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p.first(), 5000u / 512 * 512);
    ASSERT_EQ(p.size(), 512u);
    for (std::uint64_t j = 0; j < p.size(); ++j) ASSERT_EQ(p[j], synthetic_word(seed, p.first() + j));
  }
  std::vector<std::uint64_t> out(3000);
  ASSERT_EQ(a.read_range(g, 777, out.size(), out.data()), status::ok);
  for (std::size_t j = 0; j < out.size(); ++j) ASSERT_EQ(out[j], synthetic_word(seed, 777 + j));
  EXPECT_EQ(r.cache->ref().slots().size(), 8u);
}

// Prefetch through the staged NVMe path: a group's missing pages go out as one round, later
// reads of them are hits, and under eviction pressure (many groups, a small cache) every value
// read after a prefetch is still the namespace's.
TEST(Array, PrefetchedSpansReadBackAsHitsAndSurviveEvictionPressure) {
  constexpr std::uint64_t seed = 19;
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 24, seed, 16});
  rig r({{syn}}, small_cache(4096, 64));
  const auto a = r.cache->map<std::uint64_t>({.name = "w", .nsid = 1, .start_lba = 0, .count = std::uint64_t{1} << 21});
  constexpr std::uint64_t per_page = 4096 / 8;
  test::cpu_warp<8>().run([&](auto& lane) { a.prefetch(lane, 3 * per_page + 7, 8 * per_page); });  // 9 pages
  auto s = r.cache->stats(0);
  EXPECT_EQ(s.counts.misses, 9u);
  EXPECT_EQ(s.counts.bytes_read, 9u * 4096);
  std::vector<std::uint64_t> out(8 * per_page);
  single_lane one;
  ASSERT_EQ(a.read_range(one, 3 * per_page + 7, out.size(), out.data()), status::ok);
  for (std::size_t j = 0; j < out.size(); ++j) ASSERT_EQ(out[j], synthetic_word(seed, 3 * per_page + 7 + j));
  s = r.cache->stats(0);
  EXPECT_EQ(s.counts.misses, 9u) << "every page was already there";
  EXPECT_EQ(s.counts.hits, 9u);
  for (std::uint32_t slot = 0; slot < r.cache->ref().slots().size(); ++slot)
    EXPECT_EQ(r.cache->ref().slots().load(slot).pins(), 0u);

  std::atomic<unsigned> wrong{0}, failed{0};
  on_threads(3, [&](unsigned w) {
    std::vector<std::uint64_t> buf(6 * per_page);  // the group's: each lane copies a share
    test::cpu_warp<8>().run([&](auto& lane) {
      for (unsigned k = 0; k < 12; ++k) {
        const std::uint64_t first = synthetic_word(w * 100 + 1, k) % (a.size() - buf.size());
        a.prefetch(lane, first, buf.size());
        if (a.read_range(lane, first, buf.size(), buf.data()) != status::ok) ++failed;
        lane.sync();
        if (lane.rank() == 0)
          for (std::size_t j = 0; j < buf.size(); ++j)
            if (buf[j] != synthetic_word(seed, first + j)) ++wrong;
        lane.sync();
      }
    });
  });
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_NO_THROW(r.cache->check());
  EXPECT_GT(r.cache->stats(0).counts.evictions, 0u) << "the spans do not all fit";
}

TEST(Array, AnOutOfRangeIndexIsReportedWithTheArrayAndIndex) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  rig r({{ram}}, small_cache(4096, 4));
  const auto a = r.cache->map<std::uint32_t>({.name = "small", .nsid = 1, .start_lba = 0, .count = 1000});
  EXPECT_EQ(a[1000], 0u);
  try {
    r.cache->check();
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'small'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("index 1000"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(r.cache->check()) << "check() clears what it reported";
}

TEST(Array, AnNvmeErrorOnAMissNamesTheLbaAndStatus) {
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 20, 1, 16});
  rig r({{syn}}, small_cache(4096, 4));
  host::fault_rule bad;
  bad.match.lba_first = 800;  // page 100 of the array below
  bad.match.lba_last = 807;
  r.drives[0]->emu->faults().add(bad);
  const auto a = r.cache->map<std::uint64_t>({.name = "data", .nsid = 1, .start_lba = 0, .count = 1u << 20});
  EXPECT_EQ(a[100 * 512 + 3], 0u);
  try {
    r.cache->check();
    FAIL() << "expected nvme_error";
  } catch (const nvme_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("LBA 800 +8"), std::string::npos) << what;
    EXPECT_NE(what.find("unrecovered read error"), std::string::npos) << what;
    EXPECT_NE(what.find("'data'"), std::string::npos) << what;
    EXPECT_EQ(e.context().lba, 800u);
  }
  EXPECT_EQ(a[5], synthetic_word(1, 5)) << "other pages still read";
}

TEST(Array, AControllerThatStopsAnsweringGivesATimeoutNotAHang) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  auto o = small_cache(4096, 4);
  o.timeout = std::chrono::milliseconds(300);
  rig r({{ram}}, o);
  host::fault_rule drop;
  drop.action.effect = host::fault_effect::drop;
  r.drives[0]->emu->faults().add(drop);
  const auto a = r.cache->map<std::uint32_t>({.name = "stuck", .nsid = 1, .start_lba = 0, .count = 1000});
  EXPECT_EQ(a[10], 0u);
  EXPECT_THROW(r.cache->check(), timeout_error);
}

TEST(Array, StatisticsCountExactlyAndRenderAsJsonAndTable) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  rig r({{ram}}, small_cache(4096, 4));
  const auto a = r.cache->map<std::uint32_t>({.name = "counted", .nsid = 1, .start_lba = 0, .count = 10'000});
  const auto b = r.cache->map<std::uint64_t>({.name = "other", .nsid = 1, .start_lba = 64, .count = 100});
  for (int i = 0; i < 10; ++i) (void)a[0];   // 1 miss, 9 hits
  (void)a[2048];                               // page 2: a miss
  (void)b[1];                                  // a miss on the second array
  const auto s = r.cache->stats(0);
  EXPECT_EQ(s.counts.accesses, 11u);
  EXPECT_EQ(s.counts.misses, 2u);
  EXPECT_EQ(s.counts.hits, 9u);
  EXPECT_EQ(s.counts.bytes_read, 2u * 4096);
  EXPECT_EQ(r.cache->stats(1).counts.misses, 1u);
  EXPECT_EQ(r.cache->total_stats().counts.accesses, 12u);
  std::uint64_t commands = 0;
  for (auto v : r.cache->latency_histogram()) commands += v;
  EXPECT_EQ(commands, 3u);
  const std::string json = r.cache->stats_json();
  EXPECT_NE(json.find("\"counted\""), std::string::npos);
  EXPECT_NE(json.find("io_latency_histogram"), std::string::npos);
  EXPECT_NE(r.cache->stats_table().find("other"), std::string::npos);
  r.cache->reset_stats();
  EXPECT_EQ(r.cache->total_stats().counts.accesses, 0u);
}

// Host operations take the CUDA stream they are ordered with (nullptr: the default stream). A
// build without the CUDA runtime has only the default stream and says so when given another,
// before touching anything.
TEST(Array, HostOperationsTakeAStreamAndABuildWithoutCudaRefusesOthers) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  rig r({{ram}}, small_cache(4096, 4));
  const auto a = r.cache->map<std::uint32_t>({.name = "s", .nsid = 1, .start_lba = 0, .count = 4096});
  a.store(5, 77u);
  EXPECT_NO_THROW(r.cache->flush(nullptr));
  EXPECT_NO_THROW(r.cache->check(nullptr));
  EXPECT_EQ(r.cache->stats(0, nullptr).counts.accesses, 1u);
  std::array<std::uint32_t, 128> block{};
  ram->read(0, 1, reinterpret_cast<std::byte*>(block.data()));
  EXPECT_EQ(block[5], 77u) << "flush(nullptr) wrote the store back";
#if !BAM_WITH_CUDA_RUNTIME
  const auto other = reinterpret_cast<stream_handle>(std::uintptr_t{1});
  for (const auto& op : std::vector<std::function<void()>>{[&] { r.cache->check(other); },
                                                          [&] { r.cache->flush(other); },
                                                          [&] { (void)r.cache->total_stats(other); },
                                                          [&] { r.cache->reset_stats(other); }}) {
    try {
      op();
      ADD_FAILURE() << "a CUDA stream was taken by a build without the CUDA runtime";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA stream"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(r.cache->total_stats().counts.accesses, 1u) << "the refused reset_stats changed nothing";
#endif
}

TEST(Array, WithStatisticsOffReadsAreRightAndNothingIsCounted) {
  constexpr std::uint64_t seed = 9;
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 20, seed, 16});
  page_cache_options o = small_cache(4096, 8);
  o.statistics = false;
  rig r({{syn}}, o);
  const auto a = r.cache->map<std::uint64_t>({.name = "w", .nsid = 1, .start_lba = 0, .count = 1u << 20});
  for (std::uint64_t i = 0; i < a.size(); i += 4099) ASSERT_EQ(a[i], synthetic_word(seed, i)) << i;
  EXPECT_NO_THROW(r.cache->check());
  EXPECT_EQ(r.cache->stats(0).counts.accesses, 0u);
  EXPECT_EQ(r.cache->total_stats().counts.misses, 0u);
  EXPECT_GT(r.drives[0]->emu->stats().commands, 0u) << "the reads did reach the controller";
}

TEST(Array, BadMappingsAreRefusedWithReasons) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  rig r({{ram}}, small_cache(4096, 4));
  EXPECT_THROW((void)r.cache->map<std::uint32_t>(
      {.name = "too big", .nsid = 1, .start_lba = 0, .count = 1 << 20}), invalid_argument);
  EXPECT_THROW((void)r.cache->map<std::uint32_t>(
      {.name = "no such namespace", .nsid = 7, .start_lba = 0, .count = 10}), invalid_argument);
  struct odd {
    char c[3];
  };
  EXPECT_THROW((void)r.cache->map<odd>({.name = "odd size", .nsid = 1, .start_lba = 0, .count = 10}), invalid_argument);
}

// page_cache is movable: arrays mapped before a move read through the cache moved to, which maps
// more; move-assigning shuts the target's own cache down first (its controllers are free for a
// new cache afterwards).
TEST(Array, AMovedPageCacheKeepsItsArraysAndAnAssignedOneShutsItsOwnDown) {
  constexpr std::uint64_t seed = 9;
  auto syn = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 24, seed, 16});
  auto other = std::make_shared<host::synthetic_store>(host::synthetic_store::options{512, 1u << 24, seed + 1, 16});
  rig r({{syn}}, small_cache(4096, 32));
  rig target({{other}}, small_cache(4096, 32));
  const auto a = r.cache->map<std::uint64_t>({.name = "before", .nsid = 1, .start_lba = 0, .count = 1u << 20});

  page_cache moved(std::move(*r.cache));
  const auto b = moved.map<std::uint64_t>({.name = "after", .nsid = 1, .start_lba = 8, .count = 1u << 10});
  EXPECT_EQ(moved.n_arrays(), 2u);
  for (std::uint64_t i = 0; i < 20'000; i += 7) {
    ASSERT_EQ(a[i], synthetic_word(seed, i)) << i;
    ASSERT_EQ(b[i % b.size()], synthetic_word(seed, 8 * 512 / 8 + i % b.size())) << i;
  }
  EXPECT_NO_THROW(moved.check());
  EXPECT_GT(moved.stats(0).counts.accesses, 0u);

  *target.cache = std::move(moved);
  for (std::uint64_t i = 1; i < 20'000; i += 11) ASSERT_EQ(a[i], synthetic_word(seed, i)) << i;
  EXPECT_EQ(target.cache->n_arrays(), 2u);
  EXPECT_NO_THROW(target.cache->check());
  // The target's old cache and its recovery are gone: its controller takes a new cache.
  page_cache fresh({target.drives[0]->ctrl.get()}, target.dma, small_cache(4096, 32));
  const auto c = fresh.map<std::uint64_t>({.name = "fresh", .nsid = 1, .start_lba = 0, .count = 1u << 10});
  EXPECT_EQ(c[5], synthetic_word(seed + 1, 5));
}
