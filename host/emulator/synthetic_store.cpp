// SPDX-License-Identifier: Apache-2.0
#include <bam/host/emulator/synthetic_store.hpp>

#include "host/memory/shared_copy.hpp"

#include <bam/synthetic.hpp>

#include <algorithm>
#include <bit>
#include <string>
#include <thread>

namespace bam::host {

namespace {
constexpr std::uint32_t failed_slot = ~std::uint32_t{0};
constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

#if defined(__x86_64__) && defined(__GNUC__)
/// bam::synthetic_fill compiled for x86-64-v4 (AVX-512 has 64-bit vector multiplies: 2-3x
/// faster on the GPU box). Chosen at run time rather than through an ifunc, which
/// sanitizer runtimes cannot run that early.
__attribute__((target("arch=x86-64-v4"))) void fill_segment_v4(std::uint64_t seed,
                                                               std::uint64_t offset,
                                                               std::span<std::byte> s) {
  synthetic_fill(seed, offset, s.data(), s.size());
}
#endif

void fill_segment(std::uint64_t seed, std::uint64_t offset, std::span<std::byte> s) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  if (v4) return fill_segment_v4(seed, offset, s);
#endif
  synthetic_fill(seed, offset, s.data(), s.size());
}

/// Calls fn(block, offset_in_block, ptr, bytes) for each piece of the segments that falls in
/// one logical block, in order.
template <class Byte, class Fn>
void for_each_block_piece(std::span<const std::span<Byte>> segments, std::uint32_t block_size,
                          Fn&& fn) {
  std::uint64_t block = 0;
  std::uint32_t offset = 0;
  for (const auto& s : segments) {
    Byte* p = s.data();
    std::size_t left = s.size();
    while (left > 0) {
      const std::size_t take = std::min<std::size_t>(left, block_size - offset);
      fn(block, offset, p, take);
      p += take;
      left -= take;
      offset += std::uint32_t(take);
      if (offset == block_size) {
        offset = 0;
        ++block;
      }
    }
  }
}
}  // namespace

synthetic_store::synthetic_store(const options& opts)
    : block_size_(opts.block_size), n_blocks_(opts.n_blocks), seed_(opts.seed),
      capacity_(opts.overlay_blocks) {
  check_block_size("synthetic_store", opts.block_size);
  BAM_EXPECTS(opts.n_blocks > 0 && opts.n_blocks <= ~std::uint64_t{0} / opts.block_size,
              "synthetic_store: " + std::to_string(opts.n_blocks) + " blocks is not a usable size");
  BAM_EXPECTS(opts.overlay_blocks > 0 && opts.overlay_blocks < failed_slot / 2,
              "synthetic_store: overlay of " + std::to_string(opts.overlay_blocks) +
                  " blocks is not a usable size");
  const std::size_t entries = std::bit_ceil(std::size_t(opts.overlay_blocks) * 2);
  mask_ = entries - 1;
  chunk_blocks_ = std::max<std::size_t>(1, chunk_bytes / block_size_);
  keys_ = std::make_unique<std::atomic<std::uint64_t>[]>(entries);
  slots_ = std::make_unique<std::atomic<std::uint32_t>[]>(entries);
  chunks_ = std::make_unique<std::atomic<std::byte*>[]>((capacity_ + chunk_blocks_ - 1) /
                                                        chunk_blocks_);
}

synthetic_store::~synthetic_store() {
  for (std::size_t c = 0; c < (capacity_ + chunk_blocks_ - 1) / chunk_blocks_; ++c) {
    delete[] chunks_[c].load(std::memory_order_relaxed);
  }
}

std::uint64_t synthetic_store::written_blocks() const noexcept {
  return std::min(next_slot_.load(std::memory_order_relaxed), capacity_);
}

std::size_t synthetic_store::home(std::uint64_t lba) const noexcept {
  return std::size_t(synthetic_word(0x5eed, lba)) & mask_;
}

std::byte* synthetic_store::find(std::uint64_t lba) const noexcept {
  for (std::size_t i = home(lba), probes = 0; probes <= mask_; i = (i + 1) & mask_, ++probes) {
    const std::uint64_t key = keys_[i].load(std::memory_order_acquire);
    if (key == 0) return nullptr;
    if (key == lba + 1) {
      // Acquire: pairs with the release that published the block after its first write.
      const std::uint32_t s = slots_[i].load(std::memory_order_acquire);
      if (s == 0 || s == failed_slot) return nullptr;
      const std::uint64_t d = s - 1;
      return chunks_[d / chunk_blocks_].load(std::memory_order_acquire) +
             (d % chunk_blocks_) * block_size_;
    }
  }
  return nullptr;
}

std::byte* synthetic_store::slot_memory(std::uint64_t d) {
  auto& chunk = chunks_[d / chunk_blocks_];
  std::byte* c = chunk.load(std::memory_order_acquire);
  if (c == nullptr) {
    auto* fresh = new std::byte[chunk_blocks_ * block_size_];
    // Release on success publishes the allocation; a loser frees its copy and uses the winner's.
    if (chunk.compare_exchange_strong(c, fresh, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      c = fresh;
    } else {
      delete[] fresh;
    }
  }
  return c + (d % chunk_blocks_) * block_size_;
}

synthetic_store::overlay_block synthetic_store::claim(std::uint64_t lba) {
  for (std::size_t i = home(lba), probes = 0; probes <= mask_; i = (i + 1) & mask_, ++probes) {
    std::uint64_t key = keys_[i].load(std::memory_order_acquire);
    if (key == 0 && keys_[i].compare_exchange_strong(key, lba + 1, std::memory_order_acq_rel,
                                                     std::memory_order_acquire)) {
      // This thread owns the first write of `lba`: reserve a data slot (published by the
      // caller once the block is copied).
      const std::uint64_t d = next_slot_.fetch_add(1, std::memory_order_relaxed);
      if (d >= capacity_) {
        slots_[i].store(failed_slot, std::memory_order_release);
        break;
      }
      return {i, std::uint32_t(d + 1), slot_memory(d), true};
    }
    if (key != lba + 1) continue;
    // Written before, or being written for the first time by another thread: wait for it
    // to be published (a block copy's time) and write over it.
    std::uint32_t s;
    while ((s = slots_[i].load(std::memory_order_acquire)) == 0) std::this_thread::yield();
    if (s == failed_slot) break;
    return {i, s, slot_memory(s - 1), false};
  }
  throw namespace_full_error("synthetic_store: the write overlay of " +
                             std::to_string(capacity_) + " blocks is full (block " +
                             std::to_string(lba) + ")");
}

void synthetic_store::readv(std::uint64_t lba, std::uint32_t n,
                            std::span<const std::span<std::byte>> dst) {
  check_transfer("synthetic_store::readv", lba, n, dst);
  std::uint64_t offset = lba * block_size_;
  for (const auto& s : dst) {
    fill_segment(seed_, offset, s);
    offset += s.size();
  }
  if (next_slot_.load(std::memory_order_relaxed) == 0) return;  // nothing was ever written
  for_each_block_piece(dst, block_size_,
                       [&](std::uint64_t b, std::uint32_t off, std::byte* p, std::size_t len) {
                         if (std::byte* data = find(lba + b)) {
                           detail::copy_from_shared(p, data + off, len);
                         }
                       });
}

void synthetic_store::writev(std::uint64_t lba, std::uint32_t n,
                             std::span<const std::span<const std::byte>> src) {
  check_transfer("synthetic_store::writev", lba, n, src);
  std::uint64_t current = ~std::uint64_t{0};
  overlay_block block{};
  const auto publish = [&] {
    // Release: a reader that sees the slot also sees the whole first write of the block.
    if (block.first_write) slots_[block.entry].store(block.slot, std::memory_order_release);
  };
  for_each_block_piece(src, block_size_,
                       [&](std::uint64_t b, std::uint32_t off, const std::byte* p,
                           std::size_t len) {
                         if (b != current) {
                           publish();
                           current = b;
                           block = claim(lba + b);
                         }
                         detail::copy_to_shared(block.data + off, p, len);
                       });
  publish();
}

}  // namespace bam::host
