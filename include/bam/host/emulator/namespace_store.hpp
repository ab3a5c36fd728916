// SPDX-License-Identifier: Apache-2.0
// bam::host::namespace_store: where an emulated namespace keeps its logical blocks. Three
// kinds: ram_store (process memory), file_store (a file or block device), synthetic_store
// (computed content of any size, with written blocks kept in a sparse overlay).
#pragma once

#include <bam/error.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace bam::host {

/// A store cannot keep more written data (a synthetic_store's overlay is full). The emulated
/// controller completes the command with Capacity Exceeded.
class namespace_full_error : public error {
 public:
  using error::error;
};

/**
 * @brief The logical blocks of one namespace.
 *
 * Transfers are scatter/gather: a command's blocks map to the host segments its PRPs name, in
 * order, so no bounce buffer is needed. Every implementation is safe to call from many threads
 * at once, on disjoint or overlapping blocks. Concurrent overlapping transfers see each block
 * as some interleaving of whole 4- or 8-byte words (no single-block atomicity is promised).
 */
class namespace_store {
 public:
  virtual ~namespace_store() = default;

  /** @brief Bytes per logical block: a power of two from 512 to 65536. */
  [[nodiscard]] virtual std::uint32_t block_size() const noexcept = 0;
  /** @brief Number of logical blocks. */
  [[nodiscard]] virtual std::uint64_t n_blocks() const noexcept = 0;

  /**
   * @brief Reads blocks [lba, lba + n) into the segments `dst`, in order.
   * @pre the segments hold n * block_size() bytes together; each starts 4-byte aligned and
   *      holds a multiple of 4 bytes.
   * @throw bam::invalid_argument on a bad range; bam::system_error on an I/O failure.
   */
  virtual void readv(std::uint64_t lba, std::uint32_t n,
                     std::span<const std::span<std::byte>> dst) = 0;
  /**
   * @brief Writes blocks [lba, lba + n) from the segments `src`, in order.
   * @throw bam::invalid_argument on a bad range; bam::system_error on an I/O failure;
   *        namespace_full_error when the store cannot keep the data.
   */
  virtual void writev(std::uint64_t lba, std::uint32_t n,
                      std::span<const std::span<const std::byte>> src) = 0;
  /** @brief Makes completed writes durable (a no-op where nothing is volatile). */
  virtual void flush() = 0;
  /**
   * @brief Hints that blocks [lba, lba + n) will be transferred soon; stores in memory start
   *        loading them. @pre the range is inside the namespace.
   */
  virtual void prefetch(std::uint64_t lba, std::uint32_t n) const noexcept {
    (void)lba;
    (void)n;
  }

  /** @brief Reads blocks [lba, lba + n) into the contiguous buffer `dst`. */
  void read(std::uint64_t lba, std::uint32_t n, std::byte* dst) {
    const std::span<std::byte> one(dst, std::size_t{n} * block_size());
    readv(lba, n, {&one, 1});
  }
  /** @brief Writes blocks [lba, lba + n) from the contiguous buffer `src`. */
  void write(std::uint64_t lba, std::uint32_t n, const std::byte* src) {
    const std::span<const std::byte> one(src, std::size_t{n} * block_size());
    writev(lba, n, {&one, 1});
  }

 protected:
  /// Throws bam::invalid_argument unless [lba, lba + n) lies inside the namespace and the
  /// segments hold exactly n blocks.
  template <class Byte>
  void check_transfer(const char* who, std::uint64_t lba, std::uint32_t n,
                      std::span<const std::span<Byte>> segments) const {
    std::size_t bytes = 0;
    for (const auto& s : segments) bytes += s.size();
    BAM_EXPECTS(n > 0 && lba < n_blocks() && n <= n_blocks() - lba,
                std::string(who) + ": blocks [" + std::to_string(lba) + ", +" +
                    std::to_string(n) + ") outside a namespace of " + std::to_string(n_blocks()));
    BAM_EXPECTS(bytes == std::size_t{n} * block_size(),
                std::string(who) + ": segments hold " + std::to_string(bytes) + " bytes, not " +
                    std::to_string(n) + " blocks");
  }
  /// Throws bam::invalid_argument unless `block_size` is a power of two in [512, 65536].
  static void check_block_size(const char* who, std::uint32_t block_size);
};

/**
 * @brief Writes bam::synthetic content for `seed` over every block of `ns`, with `threads`
 *        threads, so that a RAM or file namespace reads like a synthetic one (and is resident).
 * @throw what the store's writes throw.
 */
void fill_synthetic(namespace_store& ns, std::uint64_t seed, unsigned threads = 1);

}  // namespace bam::host
