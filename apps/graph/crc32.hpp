// SPDX-License-Identifier: Apache-2.0
// CRC-32 (zlib's, the ISO-HDLC / gzip polynomial) computed on several threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace bam::graph {

/**
 * @brief Extends `crc` (0 for an empty prefix) over `data`, as zlib's crc32() would in one call.
 * @param threads 0 means apps::default_thread_count(); the data is cut into pieces checksummed in
 *        parallel and joined with crc32_combine(), so the result does not depend on it.
 */
[[nodiscard]] std::uint32_t crc32_extend(std::uint32_t crc, std::span<const std::byte> data,
                                         unsigned threads = 0);

}  // namespace bam::graph
