// SPDX-License-Identifier: Apache-2.0
// bam::host::synthetic_store: a namespace of any size whose content is computed
// (bam::synthetic_word), with written blocks kept in a lock-free sparse overlay.
#pragma once

#include <bam/host/emulator/namespace_store.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace bam::host {

/**
 * @brief A synthetic namespace: byte `o` reads as `bam::synthetic_byte(seed, o)` until a write
 *        covers it; written blocks read back as written.
 *
 * The overlay is an open-addressing hash table (linear probing, insert-only) from LBA to a
 * block of overlay memory, allocated in 1 MiB chunks as blocks are first written. Reads and
 * writes take no lock. A block becomes visible to readers once its first write has copied the
 * whole block (release); until then readers see the synthetic content.
 */
class synthetic_store final : public namespace_store {
 public:
  struct options {
    std::uint32_t block_size = 512;        ///< bytes per logical block
    std::uint64_t n_blocks = 0;            ///< namespace size in blocks (terabytes are fine)
    std::uint64_t seed = 0;                ///< content seed (bam::synthetic_word)
    std::uint64_t overlay_blocks = 1u << 16;  ///< distinct blocks that may be written
  };

  /** @throw bam::invalid_argument on a bad block size, zero blocks or overlay size. */
  explicit synthetic_store(const options& opts);
  ~synthetic_store() override;
  synthetic_store(const synthetic_store&) = delete;
  synthetic_store& operator=(const synthetic_store&) = delete;

  [[nodiscard]] std::uint32_t block_size() const noexcept override { return block_size_; }
  [[nodiscard]] std::uint64_t n_blocks() const noexcept override { return n_blocks_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  /** @brief Distinct blocks written so far (bounded by options::overlay_blocks). */
  [[nodiscard]] std::uint64_t written_blocks() const noexcept;

  /** @note Synthetic fill, then relaxed word copies of the overlay blocks that are visible. */
  void readv(std::uint64_t lba, std::uint32_t n,
             std::span<const std::span<std::byte>> dst) override;
  /**
   * @note A block written for the first time is published with a release store after its
   *       whole content is copied.
   * @throw namespace_full_error when more than options::overlay_blocks distinct blocks would
   *        be written.
   */
  void writev(std::uint64_t lba, std::uint32_t n,
              std::span<const std::span<const std::byte>> src) override;
  void flush() override {}

 private:
  /// An overlay block: its hash-table entry and its memory.
  struct overlay_block {
    std::size_t entry = 0;     ///< hash-table entry
    std::uint32_t slot = 0;    ///< data slot + 1, the value published in slots_[entry]
    std::byte* data = nullptr;
    bool first_write = false;  ///< this writer reserved the slot and must publish it
  };

  [[nodiscard]] std::size_t home(std::uint64_t lba) const noexcept;
  /// The published overlay memory of `lba`, or nullptr when it was never (fully) written.
  [[nodiscard]] std::byte* find(std::uint64_t lba) const noexcept;
  /// The overlay block of `lba`, reserving one on the first write (which the caller publishes
  /// once the whole block is copied). Other writers of a block being written for the first
  /// time wait, a block copy's time, for it to be published.
  [[nodiscard]] overlay_block claim(std::uint64_t lba);
  /// Memory of data slot `d`, allocating its chunk on first use (lock-free, CAS publication).
  [[nodiscard]] std::byte* slot_memory(std::uint64_t d);

  std::uint32_t block_size_;
  std::uint64_t n_blocks_;
  std::uint64_t seed_;
  std::uint64_t capacity_;       ///< overlay_blocks
  std::size_t mask_;             ///< hash table size - 1
  std::size_t chunk_blocks_;     ///< overlay blocks per chunk
  std::unique_ptr<std::atomic<std::uint64_t>[]> keys_;  ///< lba + 1; 0 = empty entry
  /// Per entry: 0 = being written for the first time, d + 1 = published data slot d,
  /// failed_slot = no data slot could be reserved.
  std::unique_ptr<std::atomic<std::uint32_t>[]> slots_;
  std::unique_ptr<std::atomic<std::byte*>[]> chunks_;
  std::atomic<std::uint64_t> next_slot_{0};
};

}  // namespace bam::host
