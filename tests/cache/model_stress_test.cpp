// SPDX-License-Identifier: Apache-2.0
// Stress tests of small caches (down to the minimum: one slot more than a group has lanes) with
// more lanes than slots: cpu_warp<32> groups and single lanes load, store and add to random pages,
// and every value read is checked against a host-side model of every write; after a flush, the
// store must hold exactly the model. One case injects read and write failures, delays and a
// hang, and checks that failures come only from them and never yield a wrong value. Each case
// runs over the unstaged and the staged fake backend.
#include "cache/cache_ref.hpp"
#include "tests/cache/cache_kinds.hpp"
#include "tests/cache/fake_backend.hpp"
#include "tests/cache/stress_config.hpp"
#include "tests/cache/test_cache.hpp"
#include "tests/support/cpu_warp.hpp"
#include "tests/support/thread_team.hpp"

#include <bam/lane_group.hpp>

#include <cuda/atomic>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bam::test {
namespace {

using cache::access_mode;
using namespace std::chrono_literals;

constexpr std::uint64_t n_pages = 512;
constexpr std::size_t page_bytes = 2048;
constexpr std::size_t words_per_page = page_bytes / sizeof(std::uint64_t);
/// Every page's last word is a counter that any lane adds 1 to (atomically, on the pinned page).
constexpr std::size_t counter_word = words_per_page - 1;
constexpr unsigned warp_lanes = 32;

/// A run's shape.
struct run_shape {
  std::uint32_t n_slots = 64;             ///< cache slots
  unsigned n_warps = 4;                   ///< cpu_warp<32> groups
  unsigned n_single = 4;                  ///< single-lane threads
  unsigned rounds = 12 * stress_scale;    ///< accesses per lane
  unsigned hot_one_in = 8;                ///< one round in this many puts every lane on one page
  std::chrono::nanoseconds timeout = 2s;  ///< the cache's wait limit
  bool faults = false;                    ///< the store's fault knobs are set: failures they explain are allowed

  unsigned owners() const { return n_warps * warp_lanes + n_single; }  ///< one per lane
};

/// A splitmix64 step: rounds and seeds to well-spread words.
constexpr std::uint64_t mix(std::uint64_t x) {
  x = (x + 0x9E37'79B9'7F4A'7C15ULL) * 0xBF58'476D'1CE4'E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D0'49BB'1331'11EBULL;
  return x ^ (x >> 31);
}
/// Whether round `r` is one where every lane asks for hot_page(r).
constexpr bool hot_round(unsigned r, unsigned one_in) { return mix(r) % one_in == 0; }
/// The page of hot round `r`: n_pages distinct rounds ask for distinct pages (167 is odd).
constexpr std::uint64_t hot_page(unsigned r) { return (std::uint64_t{r} * 167 + 11) % n_pages; }

/**
 * @brief What the store must hold. Word w < owners of every page belongs to lane w: only that
 * lane writes it, so its value is known exactly (the owner's own copy, `owned`). The counter
 * word holds its initial pattern plus `added`. Every other word is never written.
 */
class host_model {
 public:
  host_model(unsigned owners, std::uint64_t pages)
      : owners_(owners), owned_(owners, std::vector<std::uint64_t>(pages)),
        added_(std::make_unique<std::atomic<std::uint64_t>[]>(pages)) {
    for (unsigned o = 0; o < owners; ++o) {
      for (std::uint64_t p = 0; p < pages; ++p) owned_[o][p] = pattern_word(0, p, 8 * o);
    }
  }
  unsigned owners() const { return owners_; }  ///< lanes that own a word of every page
  /// Owner `o`'s word of page `p`: touched by that owner's thread only while lanes run.
  std::uint64_t& owned(unsigned o, std::uint64_t p) { return owned_[o][p]; }
  /// Successful and in-flight additions to page `p`'s counter.
  std::atomic<std::uint64_t>& added(std::uint64_t p) { return added_[p]; }
  /// The value word `w` of page `p` must hold once every lane has returned.
  std::uint64_t expected(std::uint64_t p, std::size_t w) const {
    if (w < owners_) return owned_[w][p];
    const std::uint64_t initial = pattern_word(0, p, 8 * w);
    return w == counter_word ? initial + added_[p].load() : initial;
  }

 private:
  unsigned owners_;
  std::vector<std::vector<std::uint64_t>> owned_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> added_;
};

/// What the lanes saw.
struct tally {
  std::atomic<std::uint64_t> accesses{0};     ///< acquire calls of all lanes
  std::atomic<std::uint64_t> failed{0};       ///< accesses whose status was not ok
  std::atomic<std::uint64_t> unexplained{0};  ///< failures no injected fault accounts for
  std::atomic<std::uint64_t> wrong{0};        ///< values that differ from the model
  std::atomic<bool> stop{false};              ///< set at the first unexplained failure or wrong value
  std::mutex first_mutex;                     ///< guards `first`
  std::string first;                          ///< the first problem, for the failure message

  /// Counts a problem in `counter`, stops every lane, and keeps the first description.
  void problem(std::atomic<std::uint64_t>& counter, const std::string& what) {
    counter.fetch_add(1);
    stop = true;
    const std::lock_guard lock(first_mutex);
    if (first.empty()) first = what;
  }
};

/// What one access does: which word of the page it touches, and how.
enum class op { load_fixed, load_own, store_own, add_own, add_counter };

/**
 * @brief Runs every lane of a shape against one cache and model. The accesses go through
 * acquire/release, the pinned page's bytes being read and written as load(), store() and
 * bam::array::fetch_add do; lanes of one group may mix reads and writes of one page.
 */
template <class Cache>
class model_run {
 public:
  model_run(Cache& c, const run_shape& shape) : c_(c), shape_(shape), model_(shape.owners(), n_pages) {
    if (shape.owners() >= counter_word) throw std::invalid_argument("more lanes than words of a page to own");
  }

  /// Runs every group to the end (or to the first problem), then drops the faults and flushes.
  void run() {
    const auto ref = c_.ref();
    run_team(shape_.n_warps + shape_.n_single, [&](unsigned id) {
      if (id >= shape_.n_warps) {
        single_lane lane;
        play(lane, ref, shape_.n_warps * warp_lanes + (id - shape_.n_warps));
        return;
      }
      cpu_warp<warp_lanes>().run([&](auto& lane) { play(lane, ref, id * warp_lanes + lane.rank()); });
    });
    fake_store& s = c_.store();
    s.read_fail_ppm = 0;
    s.write_fail_ppm = 0;
    s.fail_every_nth_read = 0;
    s.hang_tag = fake_store::no_tag;
    flushed_ = ref.flush();
  }

  /// Checks the lanes' findings and that the flushed store holds the model, word for word.
  void verify() {
    EXPECT_EQ(t_.wrong.load(), 0U) << t_.first;
    EXPECT_EQ(t_.unexplained.load(), 0U) << t_.first;
    if (!t_.stop.load()) {
      EXPECT_EQ(t_.accesses.load(), std::uint64_t{shape_.rounds} * shape_.owners()) << "every lane ran to the end";
    }
    if (!shape_.faults) {
      EXPECT_EQ(t_.failed.load(), 0U) << t_.first;
      EXPECT_EQ(c_.ref().stats().total().accesses, t_.accesses.load());
    }
    EXPECT_EQ(flushed_, status::ok);
    std::uint64_t stale = 0;
    std::string first_stale;
    for (std::uint64_t p = 0; p < n_pages; ++p) {
      for (std::size_t w = 0; w < words_per_page; ++w) {
        std::uint64_t v = 0;
        std::memcpy(&v, c_.store().page(0, p) + 8 * w, sizeof v);
        if (v == model_.expected(p, w)) continue;
        if (stale++ == 0) first_stale = "page " + std::to_string(p) + " word " + std::to_string(w);
      }
    }
    EXPECT_EQ(stale, 0U) << "words the flushed store holds wrongly, first: " << first_stale;
    for (std::uint32_t slot = 0; slot < shape_.n_slots; ++slot) EXPECT_EQ(c_.state(slot).pins(), 0U) << slot;
    EXPECT_EQ(c_.store().overlaps.load(), 0U);
  }

  const tally& lanes() const { return t_; }  ///< what the lanes saw

 private:
  /// One lane: `rounds` accesses, stopping (as a group) at the first problem anywhere.
  template <class Group, class Ref>
  void play(Group& g, const Ref& ref, unsigned owner) {
    std::mt19937_64 rng(mix(owner + 1));
    for (unsigned round = 0; round < shape_.rounds; ++round) {
      if (g.ballot(t_.stop.load()) != 0) return;
      const std::uint64_t page = hot_round(round, shape_.hot_one_in) ? hot_page(round) : rng() % n_pages;
      const std::uint64_t dice = rng();
      const op o = dice % 10 < 4 ? op::load_fixed
                   : dice % 10 < 6 ? op::load_own
                   : dice % 10 < 8 ? op::store_own
                   : dice % 10 < 9 ? op::add_own
                                   : op::add_counter;
      const bool writes = o == op::store_own || o == op::add_own || o == op::add_counter;
      const cache::page_pin pin = ref.acquire(g, {0, page}, writes ? access_mode::write : access_mode::read);
      t_.accesses.fetch_add(1, std::memory_order_relaxed);
      if (pin.result == status::ok) {
        apply(o, pin.data, page, owner, (dice >> 8) | 1, round);
      } else {
        judge_failure(pin.result, page, owner, round);
      }
      ref.release(g, pin);
    }
  }

  /// Performs `o` on the pinned page and checks what it read against the model.
  void apply(op o, std::byte* data, std::uint64_t page, unsigned owner, std::uint64_t dice, unsigned round) {
    const auto word_at = [&](std::size_t w) { return reinterpret_cast<std::uint64_t*>(data + 8 * w); };
    std::uint64_t& mine = model_.owned(owner, page);
    std::uint64_t v = 0;
    switch (o) {
      case op::load_fixed: {
        const std::size_t w = model_.owners() + dice % (counter_word - model_.owners());
        std::memcpy(&v, word_at(w), sizeof v);
        check(v == pattern_word(0, page, 8 * w), "fixed word", page, w, owner, round);
        return;
      }
      case op::load_own:
        std::memcpy(&v, word_at(owner), sizeof v);
        check(v == mine, "own word", page, owner, owner, round);
        return;
      case op::store_own:
        mine = (std::uint64_t{owner} << 40) | (std::uint64_t{round} << 8) | 0x5A;
        std::memcpy(word_at(owner), &mine, sizeof mine);
        return;
      case op::add_own:
        v = cuda::atomic_ref<std::uint64_t>(*word_at(owner)).fetch_add(dice, cuda::std::memory_order_relaxed);
        check(v == mine, "own word's fetch_add", page, owner, owner, round);
        mine = v + dice;
        return;
      case op::add_counter: {
        // Counted before the add, which releases the count to every later add of the word: the
        // adds this one finds were all counted, as was this one.
        model_.added(page).fetch_add(1);
        v = cuda::atomic_ref<std::uint64_t>(*word_at(counter_word)).fetch_add(1, cuda::std::memory_order_acq_rel);
        const std::uint64_t found = v - pattern_word(0, page, 8 * counter_word);
        check(found < model_.added(page).load(), "counter's fetch_add", page, counter_word, owner, round);
        return;
      }
    }
  }

  /// Counts a wrong value unless `right`.
  void check(bool right, const char* what, std::uint64_t page, std::size_t word, unsigned owner, unsigned round) {
    if (right) return;
    std::ostringstream s;
    s << "wrong " << what << ": page " << page << " word " << word << ", lane " << owner << " round " << round;
    t_.problem(t_.wrong, s.str());
  }

  /// A failed access is allowed only when injected faults explain it: io_error when a read of
  /// its page failed or a write-back (of any page: its victim's) did, timeout on the hung page.
  void judge_failure(status st, std::uint64_t page, unsigned owner, unsigned round) {
    t_.failed.fetch_add(1);
    const fake_store& s = c_.store();
    const bool explained =
        shape_.faults &&
        ((st == status::io_error && (s.read_failures(0, page) > 0 || s.failed_writes.load() > 0)) ||
         (st == status::timeout && s.hang_tag.load() == cache::make_tag({0, page})));
    if (explained) return;
    std::ostringstream m;
    m << "lane " << owner << " round " << round << ": page " << page << " failed with " << to_string(st);
    t_.problem(t_.unexplained, m.str());
  }

  Cache& c_;
  run_shape shape_;
  host_model model_;
  tally t_;
  status flushed_ = status::ok;
};

template <class Cache>
void run_and_verify(const run_shape& shape) {
  Cache c({.n_slots = shape.n_slots, .page_bytes = page_bytes, .range_pages = {n_pages}, .timeout = shape.timeout});
  model_run<Cache> run(c, shape);
  run.run();
  run.verify();
  EXPECT_GT(c.ref().stats().total().evictions, 0U);
}

template <class Cache>
class CacheModelStress : public ::testing::Test {};
TYPED_TEST_SUITE(CacheModelStress, cache_kinds, cache_kind_names);

TYPED_TEST(CacheModelStress, WarpsAndSingleLanesOnASmallCacheMatchTheModel) {
  run_and_verify<TypeParam>({.n_slots = 64, .n_warps = 4, .n_single = 4});
}

TYPED_TEST(CacheModelStress, AllLanesOfEveryWarpOnOnePage) {
  run_and_verify<TypeParam>({.n_slots = warp_lanes + 1, .n_warps = 4, .n_single = 2, .hot_one_in = 1});
}

TYPED_TEST(CacheModelStress, MinimumCacheForWarps) {
  run_and_verify<TypeParam>({.n_slots = warp_lanes + 1, .n_warps = 3, .n_single = 0});
}

TYPED_TEST(CacheModelStress, MinimumCacheForSingleLanes) {
  run_and_verify<TypeParam>({.n_slots = 2, .n_warps = 0, .n_single = 6, .rounds = 2000 * stress_scale});
}

TYPED_TEST(CacheModelStress, InjectedFaultsFailOnlyTheirAccessesAndNeverYieldWrongValues) {
  // The time limit is generous: only the hung page may time out, and a loaded 2-core CI machine
  // can deschedule a filler for tens of milliseconds.
  constexpr run_shape shape{.n_slots = 64, .n_warps = 4, .n_single = 4, .timeout = 250ms, .faults = true};
  TypeParam c({.n_slots = shape.n_slots, .page_bytes = page_bytes, .range_pages = {n_pages}, .timeout = shape.timeout});
  fake_store& s = c.store();
  s.fault_seed = 11;
  s.read_fail_ppm = 20'000;
  s.write_fail_ppm = 50'000;
  s.fail_every_nth_read = 97;
  s.jitter_us = 40;
  unsigned first_hot = 0;
  while (!hot_round(first_hot, shape.hot_one_in)) ++first_hot;
  s.hang_tag = cache::make_tag({0, hot_page(first_hot)});  // every lane meets it in that round
  model_run<TypeParam> run(c, shape);
  run.run();
  run.verify();
  EXPECT_GT(s.failed_reads.load(), 0U);
  EXPECT_GT(s.failed_writes.load(), 0U);
  EXPECT_GT(s.hung.load(), 0U);
  EXPECT_GT(run.lanes().failed.load(), 0U) << "the faults reached the lanes";
}

}  // namespace
}  // namespace bam::test
