// SPDX-License-Identifier: Apache-2.0
// The peers and ceilings queue_read measures beside bam, on the same data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bam::bench {

/// Host-to-device cudaMemcpy bandwidth from pinned memory, bytes/s (median of `repeats`).
double h2d_bytes_per_s(std::size_t bytes, int repeats);

/// Result of a random-page read peer.
struct page_rate {
  double pages_per_s = 0;
  std::uint64_t pages = 0;
  std::uint64_t mismatched_words = 0;  ///< words that differed from the synthetic content
  std::string error;                   ///< non-empty when the peer could not run
};

/**
 * @brief GPU warps read random pages of `page_bytes` straight from pinned host memory
 * (zero-copy, the EMOGI approach) and verify every word against the synthetic content.
 * @param data device pointer of the pinned copy of the namespace (synthetic content, seed)
 */
page_rate zero_copy_random_pages(const std::byte* data, std::uint64_t data_bytes, std::uint32_t page_bytes,
                                 std::uint64_t seed, std::uint64_t reads);

/**
 * @brief cuFile (GPUDirect Storage, compatibility mode: POSIX reads through bounce buffers)
 * reads random pages of `path` into GPU memory from `threads` host threads; a sample of the
 * pages is copied back and verified against the synthetic content.
 */
page_rate cufile_random_pages(const std::string& path, std::uint64_t file_bytes, std::uint32_t page_bytes,
                              std::uint64_t seed, std::uint64_t reads, unsigned threads);

}  // namespace bam::bench
