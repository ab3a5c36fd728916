// SPDX-License-Identifier: Apache-2.0
// The demo's per-reader loop, written once for GPU threads and for CPU threads: random reads of
// a synthetic namespace through one queue pair, every byte verified.
#pragma once

#include <bam/config.hpp>
#include <bam/synthetic.hpp>

#include "queues/queue_pair.hpp"

#include <cstdint>

namespace bam::demo {

struct reader_totals {
  unsigned long long reads = 0;
  unsigned long long bad_bytes = 0;  ///< reads whose bytes differed from the namespace
  unsigned long long failures = 0;   ///< commands that did not complete successfully
  unsigned int first_status = 0;     ///< bam::status of the first failure
  unsigned long long first_lba = 0;
};

/// Issues `reads` random reads of `blocks` blocks into `frame` (bus address `bus`) and verifies
/// each; stops at the first failure. Returns the reader's totals.
BAM_HD inline reader_totals read_and_verify(const queues::queue_pair_ref<>& qp, std::byte* frame, std::uint64_t bus,
                                            std::uint32_t blocks, std::uint32_t block_bytes, std::uint64_t n_blocks,
                                            std::uint64_t seed, std::uint64_t reader, std::uint32_t reads,
                                            std::uint64_t timeout_ns) {
  reader_totals t;
  const std::size_t bytes = std::size_t{blocks} * block_bytes;
  for (std::uint32_t i = 0; i < reads; ++i) {
    const std::uint64_t lba = synthetic_word(reader, i) % (n_blocks / blocks) * blocks;
    const auto r = qp.execute(nvme::make_read(1, lba, blocks, bus, 0), timeout_ns);
    if (!r.ok()) {
      t.failures = 1;
      t.first_status = unsigned(r.status);
      t.first_lba = lba;
      return t;
    }
    ++t.reads;
    if (synthetic_mismatch(seed, lba * block_bytes, frame, bytes) != bytes) ++t.bad_bytes;
  }
  return t;
}

}  // namespace bam::demo
