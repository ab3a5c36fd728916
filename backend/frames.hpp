// SPDX-License-Identifier: Apache-2.0
// bam::backend frames: the addresses a command's data moves through — the pinned host frame
// of each (queue pair, command id) and its PRPs (host-pinned tier), or the PRPs of the cache
// slot itself (peer-to-peer tier) — and the copies between a frame and a slot.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/group_copy.hpp>

#include "queues/prp.hpp"

#include <cstddef>
#include <cstdint>

namespace bam::backend {

/// The data buffers of every command: frames and their PRPs, or the slots' PRPs.
struct frame_table {
  /// Host-pinned tier: one frame of page_bytes per (queue pair, command id), and its PRPs.
  std::byte* frames = nullptr;
  const queues::prp_pair* frame_prps = nullptr;
  /// Peer-to-peer tier (frames == nullptr): PRPs of each cache slot itself.
  const queues::prp_pair* slot_prps = nullptr;
  std::uint32_t queue_depth = 0;
  std::uint32_t page_bytes = 0;

  /// The frame of command id `cid` on queue pair `pair` (host-pinned tier), else null.
  BAM_HD std::byte* frame(std::uint32_t pair, std::uint32_t cid) const {
    return frames ? frames + (std::size_t{pair} * queue_depth + cid) * page_bytes : nullptr;
  }
  /// The PRPs a command of (pair, cid) for slot `slot` transfers through: its frame's, or in
  /// the peer-to-peer tier the slot's own.
  BAM_HD queues::prp_pair prps(std::uint32_t pair, std::uint32_t cid, std::uint32_t slot) const {
    return frames ? frame_prps[std::size_t{pair} * queue_depth + cid] : slot_prps[slot];
  }
  /// This member's share of a page copy by `n` members (one thread: me = 0, n = 1): 16-byte
  /// words me, me + n, ..., a batch of uncached loads in flight per lane (detail::copy_words).
  /// @note Plain loads and stores: the caller orders them against the command that owns the
  /// frame (nvme_backend: the completion's acquire and a group sync before, the release of the
  /// command id after; for a write, the submission's release publishes the frame).
  BAM_HD void copy_share(detail::word16* dst, const detail::word16* src, unsigned me, unsigned n) const {
    detail::copy_words<detail::word_load::uncached>(dst, src, page_bytes / sizeof(detail::word16), me, n);
  }
};

}  // namespace bam::backend
