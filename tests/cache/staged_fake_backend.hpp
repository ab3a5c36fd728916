// SPDX-License-Identifier: Apache-2.0
// Test support for cache/: a cache::staged_backend over a fake_store, shaped like the backend
// that ships (bam::nvme_backend's host-pinned tier), so CPU tests run the cache's staged path.
#pragma once

#include "cache/backend.hpp"
#include "tests/cache/fake_backend.hpp"

#include <bam/detail/group_copy.hpp>
#include <bam/lane_group.hpp>
#include <bam/status.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

namespace bam::test {

/**
 * @brief A cache::staged_backend over a fake_store: trivially copyable, as nvme_backend is.
 *
 * `start_read` never waits: it records the read. `finish_reads` is collective, like
 * nvme_backend's: one ballot, and every lane returns at once when no lane owes a read (the hit
 * path); otherwise each active lane reads its page through fake_store::read into a frame of its
 * own (so the store's knobs act per lane: delay, jitter, failure by tag, every n-th or by rate,
 * hang by tag with or without deadline), the group syncs, and the whole group copies every
 * successful lane's frame into that lane's slot, a share per lane (with slow_fill, yielding
 * after every 16 bytes), then syncs again before any lane returns. Every lane calls the group's
 * collectives the same number of times. `write_page` is one thread's call of fake_store::write.
 * Pages are whole 16-byte words, as every valid_page_bytes size is.
 */
struct staged_fake_backend {
  fake_store* store;  ///< where the pages live

  /// A read that start_read recorded and finish_reads performs.
  struct staged {
    cache::page_io io{};  ///< the recorded request
    bool owed = false;    ///< whether this lane owes a read
    bool active() const noexcept { return owed; }  ///< cache::staged_backend
  };

  /// Records the read of a page for the group's finish_reads.
  status start_read(const cache::page_io& io, staged& s) const {
    s = staged{io, true};
    return status::ok;
  }

  /**
   * @brief Performs the reads every lane of `g` recorded (collective; each lane passes its own
   * record, active or not) and returns each lane's status: ok when its slot holds the page.
   * @note The first sync orders every lane's frame fill before its peers' loads of the frame;
   * the second orders the peers' slot stores before any lane returns (and its cache publishes
   * the slot), and their frame loads before the frame's owner refills it in a later call.
   */
  template <lane_group Group>
  status finish_reads(Group& g, const staged& mine) const {
    if (g.ballot(mine.active()) == 0) return status::ok;  // the hit path: one ballot, nothing owed
    const std::size_t bytes = store->page_bytes();
    std::byte* frame = nullptr;
    status result = status::ok;
    if (mine.active()) {
      frame = frame_of_this_thread(bytes);
      result = store->read(cache::page_io{mine.io.key, mine.io.slot, {frame, bytes}, mine.io.deadline_ns});
    }
    lane_mask copies = g.ballot(mine.active() && result == status::ok);
    const lane_mask members = g.ballot(true);
    const lane_mask below = (lane_mask{1} << g.rank()) - 1;
    const auto me = static_cast<unsigned>(std::popcount(members & below));
    const auto n = static_cast<unsigned>(std::popcount(members));
    g.sync();
    while (copies != 0) {
      const auto j = static_cast<unsigned>(std::countr_zero(copies));
      copies &= copies - 1;
      const auto* src = reinterpret_cast<const detail::word16*>(g.shfl(reinterpret_cast<std::uint64_t>(frame), j));
      auto* dst = reinterpret_cast<detail::word16*>(
          g.shfl(mine.active() ? reinterpret_cast<std::uint64_t>(mine.io.data.data()) : 0, j));
      copy_share(dst, src, bytes / sizeof(detail::word16), me, n);
    }
    g.sync();
    return result;
  }

  /// Stores one page (one thread).
  status write_page(const cache::page_io& io) const { return store->write(io); }

 private:
  /// The calling lane's frame: a thread's reads are one at a time, and a frame outlives the
  /// copies of the call that filled it (they end at its second sync).
  static std::byte* frame_of_this_thread(std::size_t bytes) {
    thread_local std::vector<detail::word16> frame;
    frame.resize((bytes + sizeof(detail::word16) - 1) / sizeof(detail::word16));
    return reinterpret_cast<std::byte*>(frame.data());
  }

  /// Member `me` of `n` copies words me, me + n, ... of a page.
  void copy_share(detail::word16* dst, const detail::word16* src, std::size_t words, unsigned me, unsigned n) const {
    if (!store->slow_fill.load(std::memory_order_relaxed)) {
      detail::copy_words(dst, src, words, me, n);
      return;
    }
    for (std::size_t w = me; w < words; w += n) {
      detail::copy_words(dst + w, src + w, 1, 0, 1);
      std::this_thread::yield();
    }
  }
};

static_assert(std::is_trivially_copyable_v<staged_fake_backend>);
static_assert(cache::staged_backend<staged_fake_backend>);

}  // namespace bam::test
