// SPDX-License-Identifier: Apache-2.0
// Test support for cache/: a RAM store whose initial bytes are a function of (range, page,
// offset), behind a cache::backend with injectable delays, slow fills, hangs and failures (by
// page, every n-th read, or at a seeded random rate).
#pragma once

#include "cache/backend.hpp"
#include "cache/page_key.hpp"

#include <bam/detail/clock.hpp>
#include <bam/status.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace bam::test {

/// The byte a fresh store holds at `offset` of page `page` of range `range`.
constexpr std::byte pattern_byte(std::uint32_t range, std::uint64_t page, std::size_t offset) {
  const std::uint64_t x = (cache::make_tag({range, page}) + 1) * 0x9E37'79B9'7F4A'7C15ULL +
                          offset * 0xBF58'476D'1CE4'E5B9ULL;
  return static_cast<std::byte>((x ^ (x >> 29)) >> 56);
}

/// The 8-byte word a fresh store holds at word-aligned `offset`.
constexpr std::uint64_t pattern_word(std::uint32_t range, std::uint64_t page, std::size_t offset) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < sizeof w; ++i) {
    w |= std::uint64_t{std::to_integer<std::uint8_t>(pattern_byte(range, page, offset + i))} << (8 * i);
  }
  return w;
}

/// What a fake_backend or staged_fake_backend reads from and writes to, with knobs that tests
/// turn; each knob acts on one read or write call, so on one lane of a group.
class fake_store {
 public:
  /// Stands for "no page" in the tag knobs.
  static constexpr std::uint64_t no_tag = ~std::uint64_t{0};

  /** @brief Ranges of `range_pages[r]` pages of `page_bytes`, filled with pattern_byte. */
  fake_store(std::size_t page_bytes, const std::vector<std::uint64_t>& range_pages)
      : page_bytes_(page_bytes) {
    for (std::uint32_t r = 0; r < range_pages.size(); ++r) {
      bytes_.emplace_back(range_pages[r] * page_bytes);
      in_flight_.emplace_back(std::make_unique<std::atomic<bool>[]>(range_pages[r]));
      read_failures_.emplace_back(std::make_unique<std::atomic<std::uint64_t>[]>(range_pages[r]));
      for (std::uint64_t p = 0; p < range_pages[r]; ++p) {
        for (std::size_t o = 0; o < page_bytes; ++o) bytes_[r][p * page_bytes + o] = pattern_byte(r, p, o);
      }
    }
  }

  /// The stored bytes of one page (read them only while no backend call is running).
  const std::byte* page(std::uint32_t range, std::uint64_t page) const {
    return bytes_[range].data() + page * page_bytes_;
  }
  std::size_t page_bytes() const { return page_bytes_; }  ///< bytes per page
  /// Reads of one page that a knob failed (an atomic load: threads may be running).
  std::uint64_t read_failures(std::uint32_t range, std::uint64_t page) const {
    return read_failures_[range][page].load();
  }

  std::atomic<std::uint64_t> reads{0};                ///< read_page calls
  std::atomic<std::uint64_t> writes{0};               ///< write_page calls
  std::atomic<std::uint64_t> overlaps{0};             ///< calls that found their page already in flight
  std::atomic<unsigned> delay_us{0};                  ///< sleep this long in every call
  std::atomic<unsigned> jitter_us{0};                 ///< and a further 0..jitter_us, drawn per call
  std::atomic<bool> slow_fill{false};                 ///< read_page copies one byte at a time, yielding
  std::atomic<std::uint64_t> fail_tag{no_tag};        ///< calls for this page return io_error
  std::atomic<std::uint64_t> fail_every_nth_read{0};  ///< read calls n, 2n, 3n, ... return io_error (0: off)
  std::atomic<std::uint32_t> read_fail_ppm{0};        ///< this many reads per million return io_error
  std::atomic<std::uint32_t> write_fail_ppm{0};       ///< this many writes per million return io_error
  std::atomic<std::uint64_t> fault_seed{0};           ///< seeds the per-call draws of jitter and rates
  std::atomic<std::uint64_t> failed_reads{0};         ///< reads a knob failed (tag, n-th or rate)
  std::atomic<std::uint64_t> failed_writes{0};        ///< writes a knob failed (tag or rate)
  std::atomic<std::uint64_t> hang_tag{no_tag};        ///< read_page of this page waits for hang_release
  std::atomic<bool> hang_honours_deadline{true};      ///< a hung read returns timeout at its deadline
  std::atomic<bool> hang_release{false};              ///< lets hung reads finish
  std::atomic<std::uint64_t> hung{0};                 ///< reads that started hanging

  /// A read of one page into io.data: fake_backend::read_page, one lane of staged_fake_backend.
  status read(const cache::page_io& io) {
    const std::uint64_t call = reads.fetch_add(1, std::memory_order_relaxed) + 1;
    const in_flight_guard guard(*this, io.key);
    const std::uint64_t tag = cache::make_tag(io.key);
    const std::uint64_t d = draw(call, read_salt);
    pause(d);
    const std::uint64_t nth = fail_every_nth_read.load(std::memory_order_relaxed);
    if (tag == fail_tag.load() || (nth != 0 && call % nth == 0) ||
        fails(d, read_fail_ppm.load(std::memory_order_relaxed))) {
      read_failures_[io.key.range][io.key.page].fetch_add(1);
      failed_reads.fetch_add(1);
      return status::io_error;
    }
    if (tag == hang_tag.load()) {
      hung.fetch_add(1);
      while (!hang_release.load()) {
        if (hang_honours_deadline.load() && detail::now_ns() > io.deadline_ns) return status::timeout;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    const std::byte* src = page(io.key.range, io.key.page);
    if (!slow_fill.load(std::memory_order_relaxed)) {
      std::memcpy(io.data.data(), src, page_bytes_);
      return status::ok;
    }
    for (std::size_t o = 0; o < page_bytes_; ++o) {
      io.data[o] = src[o];
      if (o % 16 == 15) std::this_thread::yield();
    }
    return status::ok;
  }

  /// A store of io.data as one page: either backend's write_page.
  status write(const cache::page_io& io) {
    const std::uint64_t call = writes.fetch_add(1, std::memory_order_relaxed) + 1;
    const in_flight_guard guard(*this, io.key);
    const std::uint64_t d = draw(call, write_salt);
    pause(d);
    if (cache::make_tag(io.key) == fail_tag.load() || fails(d, write_fail_ppm.load(std::memory_order_relaxed))) {
      failed_writes.fetch_add(1);
      return status::io_error;
    }
    std::memcpy(bytes_[io.key.range].data() + io.key.page * page_bytes_, io.data.data(), page_bytes_);
    return status::ok;
  }

 private:
  /// Counts calls that overlap for one page (the cache promises there are none).
  class in_flight_guard {
   public:
    in_flight_guard(fake_store& s, cache::page_key k) : flag_(s.in_flight_[k.range][k.page]) {
      if (flag_.exchange(true)) s.overlaps.fetch_add(1);
    }
    ~in_flight_guard() { flag_.store(false); }
    in_flight_guard(const in_flight_guard&) = delete;
    in_flight_guard& operator=(const in_flight_guard&) = delete;

   private:
    std::atomic<bool>& flag_;
  };

  static constexpr std::uint64_t read_salt = 0x5EAD;   ///< draws of reads...
  static constexpr std::uint64_t write_salt = 0x3817E;  ///< ...differ from those of writes

  /// A pseudo-random word for call number `call` of one direction (splitmix64 of the seed).
  std::uint64_t draw(std::uint64_t call, std::uint64_t salt) const {
    std::uint64_t x = fault_seed.load(std::memory_order_relaxed) + (call * 2 + salt) * 0x9E37'79B9'7F4A'7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58'476D'1CE4'E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D0'49BB'1331'11EBULL;
    return x ^ (x >> 31);
  }
  /// Whether a call whose draw is `d` fails at `ppm` per million.
  static bool fails(std::uint64_t d, std::uint32_t ppm) { return (d >> 8) % 1'000'000 < ppm; }

  /// Sleeps delay_us plus the draw's share of jitter_us.
  void pause(std::uint64_t d) const {
    const unsigned jitter = jitter_us.load(std::memory_order_relaxed);
    const std::uint64_t us = delay_us.load(std::memory_order_relaxed) + (jitter ? (d >> 40) % (jitter + 1) : 0);
    if (us != 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
  }

  std::size_t page_bytes_;
  std::vector<std::vector<std::byte>> bytes_;
  std::vector<std::unique_ptr<std::atomic<bool>[]>> in_flight_;
  std::vector<std::unique_ptr<std::atomic<std::uint64_t>[]>> read_failures_;
};

/// A cache::backend over a fake_store: trivially copyable, as a real backend view is.
struct fake_backend {
  fake_store* store;  ///< where the pages live
  status read_page(const cache::page_io& io) const { return store->read(io); }    ///< fill a slot
  status write_page(const cache::page_io& io) const { return store->write(io); }  ///< store one
};

static_assert(cache::backend<fake_backend>);

}  // namespace bam::test
