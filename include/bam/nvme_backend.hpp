// SPDX-License-Identifier: Apache-2.0
// nvme_backend: how bam's page cache reaches NVMe. It maps a page of an array to a controller
// and an LBA (pages striped over controllers), drives the queue pair of the caller's SM, and
// moves the data through a pinned host frame (host-pinned tier: the controller writes the
// frame, the warp copies its frames into the VRAM slots together) or lets the controller DMA
// straight into the slot (peer-to-peer tier). The cache sees only the cache::staged_backend
// interface.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/group_copy.hpp>
#include <bam/detail/lane_group.hpp>
#include <bam/device_error.hpp>
#include <bam/nvme/command.hpp>
#include <bam/status.hpp>

#include "cache/backend.hpp"
#include "queues/prp.hpp"
#include "queues/queue_set.hpp"

#include <cuda/std/bit>
#include <nv/target>

#include <cstdint>
#include <type_traits>

namespace bam {

/// Where one mapped range (array) lives on storage.
struct range_placement {
  std::uint32_t nsid = 1;             ///< namespace id, the same on every controller of the stripe
  std::uint32_t blocks_per_page = 0;  ///< logical blocks per cache page
  std::uint64_t start_lba = 0;        ///< first LBA of the range on each controller
  std::uint32_t first_controller = 0; ///< controller of page 0
  std::uint32_t controllers = 1;      ///< stripe width: page p lives on controller
                                      ///< first + p % width, at start_lba + p / width pages
};

class nvme_backend {
 public:
  /// Everything the backend views; owned by bam::page_cache.
  struct storage {
    queues::queue_set_ref<> queues;
    const range_placement* ranges = nullptr;
    /// Host-pinned tier: one frame of page_bytes per (queue pair, command id), and its PRPs.
    std::byte* frames = nullptr;
    const queues::prp_pair* frame_prps = nullptr;
    /// Peer-to-peer tier (frames == nullptr): PRPs of each cache slot itself.
    const queues::prp_pair* slot_prps = nullptr;
    std::uint32_t queue_depth = 0;
    std::uint32_t page_bytes = 0;
    std::uint32_t controller_base = 0;  ///< index of controller 0 in error messages
    /// Bound on each command, from its submission: past it the command counts as lost.
    std::uint64_t command_timeout_ns = 1'000'000'000;
    device_error* errors = nullptr;
    /// latency_buckets words: commands whose submit-to-completion time was in
    /// [2^b, 2^(b+1)) ns land in bucket b (the last bucket takes everything longer); may be null.
    std::uint64_t* latency_histogram = nullptr;
  };
  static constexpr std::uint32_t latency_buckets = 40;

  nvme_backend() = default;
  BAM_HD explicit nvme_backend(const storage& s) : s_(s) {}

  /// A read that start_read recorded and finish_reads performs (cache::staged_backend).
  struct staged {
    cache::page_io io{};
    bool owed = false;
    BAM_HD bool active() const noexcept { return owed; }
  };

  /// Records the read of a page for the group's finish_reads.
  BAM_HD status start_read(const cache::page_io& io, staged& s) const {
    s = staged{io, true};
    return status::ok;
  }

  /**
   * @brief Performs the reads every lane of `g` recorded (collective; each lane passes its own
   * record, active or not) and returns each lane's status; on ok its slot holds the page.
   *
   * The lanes whose pages live on one controller form a round: one lane enters a pair of that
   * controller in service (its SM's, else the next: queue_set_ref::enter) and reserves
   * consecutive tickets for all of them (queue_pair_ref::reserve(n)), each lane submits its read
   * and waits for it, then the whole group copies the round's frames into their slots, 16 bytes
   * per lane per step (512 contiguous bytes of a frame per warp load: few, large PCIe reads
   * instead of one lane's ~128 scattered ones), each lane releases its command id, and the lane
   * leaves the pair. A lane whose pair went out of service before its command was published
   * (queue_failed) goes again in a later round, on another pair: only a command that was
   * published and then lost fails its lane (timeout).
   * @note No wait cycle: a lane holds command ids only of its group's current round, whose
   * tickets are consecutive, so every ticket waits only for earlier reservations (depth must
   * exceed the group size; page_cache checks it), and a group never holds ids on two pairs.
   * The first sync orders every lane's acquire of its completion before its peers' loads of
   * its frame; the loads bypass L1 (a frame is rewritten for every command). The second
   * orders the peers' loads before each lane releases its command id, and their slot stores
   * before the cache publishes the slots; the pair is left after it.
   */
  template <class Group>
  BAM_HD status finish_reads(Group& g, const staged& mine) const {
    detail::lane_mask todo = g.ballot(mine.active());
    if (todo == 0) return status::ok;  // the hit path: one ballot, nothing owed
    const detail::lane_mask members = g.ballot(true);
    const detail::lane_mask below = (detail::lane_mask{1} << g.rank()) - 1;
    const unsigned me = unsigned(cuda::std::popcount(members & below));
    const unsigned n = unsigned(cuda::std::popcount(members));
    const std::uint32_t my_controller = mine.active() ? controller_of(mine.io.key) : 0;
    status result = status::ok;
    std::uint64_t recovery_limit = 0;  // set when a round first finds no pair in service
    detail::backoff wait;
    while (todo != 0) {
      const unsigned lead = unsigned(cuda::std::countr_zero(todo));
      const auto controller = std::uint32_t(g.shfl(my_controller, lead));
      const bool in_round = ((todo >> g.rank()) & 1) != 0 && my_controller == controller;
      const detail::lane_mask round = g.ballot(in_round);
      std::uint32_t pair = 0;
      if (g.rank() == lead) pair = s_.queues.enter(controller, detail::worker_id());
      pair = std::uint32_t(g.shfl(pair, lead));
      if (pair == queues::queue_set_ref<>::no_pair) {  // every pair is being recovered: wait, bounded
        if (recovery_limit == 0) recovery_limit = detail::now_ns() + recovery_bound_ns();
        if (detail::now_ns() > recovery_limit) {
          if (in_round) result = status::queue_failed;
          todo &= ~round;
        }
        wait();
        continue;
      }
      const auto& qp = s_.queues.at(pair);
      std::uint64_t first = 0;
      if (g.rank() == lead) first = qp.reserve(std::uint32_t(cuda::std::popcount(round)));
      first = g.shfl(first, lead);
      const std::uint64_t t = first + std::uint64_t(cuda::std::popcount(round & below));
      std::byte* frame = nullptr;
      bool holds = false;
      status st = status::ok;
      if (in_round) st = issue(qp, pair, controller, t, mine.io, nvme::io_opcode::read, frame, holds);
      detail::lane_mask copies = g.ballot(in_round && st == status::ok && frame != nullptr);
      g.sync();
      while (copies != 0) {
        const unsigned j = unsigned(cuda::std::countr_zero(copies));
        copies &= copies - 1;
        const auto* src = reinterpret_cast<const detail::word16*>(g.shfl(reinterpret_cast<std::uint64_t>(frame), j));
        auto* dst = reinterpret_cast<detail::word16*>(g.shfl(reinterpret_cast<std::uint64_t>(mine.io.data.data()), j));
        copy_share(dst, src, me, n);
      }
      g.sync();
      if (holds) qp.release(t);
      if (g.rank() == lead) qp.leave();
      // Lanes turned away before their command was published go again, on another pair.
      todo &= ~g.ballot(in_round && st != status::queue_failed);
      if (in_round && st != status::queue_failed) result = st;
    }
    return result;
  }

  /**
   * @brief Writes `io.data` to the page's blocks, from one thread, on a pair of its controller.
   * @return ok; io_error or timeout (the command failed or was lost: recorded); queue_failed,
   * not recorded, when no pair of the controller is in service or the pair left service before
   * the write was published (nothing was written; the caller keeps the page dirty)
   * @note A lost write could still be performed by the controller until its SQ is deleted: if
   * the page were written again meanwhile (on another pair), the late write would overwrite the
   * newer data. So a caller whose write was lost does not return, holding the page's slot busy,
   * until the pair was re-created (its epoch moved on), bounded by recovery_bound_ns().
   */
  BAM_HD status write_page(const cache::page_io& io) const {
    const std::uint32_t controller = controller_of(io.key);
    const std::uint32_t pair = s_.queues.enter(controller, detail::worker_id());
    if (pair == queues::queue_set_ref<>::no_pair) return status::queue_failed;
    const auto& qp = s_.queues.at(pair);
    const std::uint32_t epoch = qp.epoch();
    const std::uint64_t t = qp.reserve();
    std::byte* frame = nullptr;
    bool holds = false;
    const status st = issue(qp, pair, controller, t, io, nvme::io_opcode::write, frame, holds);
    if (holds) qp.release(t);
    qp.leave();
    if (st == status::timeout) await_recovery(qp, controller, epoch);
    return st;
  }

  /// Sends NVMe Flush for `nsid` on every controller, from the calling thread, on a pair in
  /// service (waiting, until `deadline_ns`, while every pair of a controller is recovering).
  BAM_HD status flush_namespace(std::uint32_t nsid, std::uint64_t deadline_ns) const {
    detail::backoff wait;
    for (std::uint32_t c = 0; c < s_.queues.controllers();) {
      const std::uint32_t pair = s_.queues.enter(c, detail::worker_id());
      queues::completion_result r{status::queue_failed, {}, 0};
      if (pair != queues::queue_set_ref<>::no_pair) {
        const auto& qp = s_.queues.at(pair);
        r = qp.execute(nvme::make_flush(nsid), s_.command_timeout_ns);
        if (r.status != status::ok && r.status != status::queue_failed) {
          fail(r.status, r.nvme_status, c, qp.qid(), 0, nvme::make_flush(nsid), 0, 0);
        }
        qp.leave();
      }
      if (r.status == status::ok) {
        ++c;
      } else if (r.status != status::queue_failed || detail::now_ns() > deadline_ns) {
        return r.status;
      } else {
        wait();
      }
    }
    return status::ok;
  }

 private:
  /// How long a round waits for a pair in service while every pair of its controller recovers:
  /// the users of a failed pair leave within one command time limit, and the host re-creates it.
  BAM_HD std::uint64_t recovery_bound_ns() const { return 4 * s_.command_timeout_ns; }

  /// Waits, bounded by recovery_bound_ns(), until `qp` has been recovered since `epoch`,
  /// helping re-created pairs back into service (the caller has left the pair).
  BAM_HD void await_recovery(const queues::queue_pair_ref<>& qp, std::uint32_t controller, std::uint32_t epoch) const {
    const std::uint64_t limit = detail::now_ns() + recovery_bound_ns();
    detail::backoff wait(1024, 65536);
    while (qp.epoch() == epoch && detail::now_ns() < limit) {
      s_.queues.heal(controller);
      wait();
    }
  }

  BAM_HD std::uint32_t controller_of(const cache::page_key& key) const {
    const range_placement& r = s_.ranges[key.range];
    return r.first_controller + std::uint32_t(key.page % r.controllers);
  }

  /**
   * @brief Ticket `t`'s command for `io`: waits for its slot, submits, waits for completion,
   * within the command time limit from now.
   * @param[out] frame the pinned frame of its command id (host-pinned tier), else null
   * @param[out] holds true once the command completed: the caller releases t after using frame
   * @return ok; io_error (completed with an error status) or timeout (published and lost: the
   * pair is failed), both recorded; queue_failed, not recorded, when the pair left service
   * before the command was published (also when this ticket's own wait for its slot or for the
   * doorbell timed out, which fails the pair: the command was never sent)
   * @note The frame of (pair, command id) belongs to the ticket's holder from wait_for_slot
   * until release: the id is not reused before then, so no other command DMAs into the frame.
   * For a write, the frame is filled before write(); the release store of the ready word and
   * the doorbell publish it to the controller. For a read, await()'s acquire makes the
   * controller's bytes visible to this thread.
   */
  BAM_HD status issue(const queues::queue_pair_ref<>& qp, std::uint32_t pair, std::uint32_t controller,
                      std::uint64_t t, const cache::page_io& io, nvme::io_opcode op, std::byte*& frame,
                      bool& holds) const {
    const range_placement& r = s_.ranges[io.key.range];
    const std::uint64_t lba = r.start_lba + (io.key.page / r.controllers) * r.blocks_per_page;
    const std::uint64_t start = detail::now_ns();
    const std::uint64_t deadline = start + s_.command_timeout_ns;
    bam::status st = qp.wait_for_slot(t, deadline);
    if (st != status::ok) return status::queue_failed;
    const std::uint32_t cid = qp.cid_of(t);
    frame = s_.frames ? s_.frames + (std::size_t{pair} * s_.queue_depth + cid) * s_.page_bytes : nullptr;
    const queues::prp_pair prp =
        frame ? s_.frame_prps[std::size_t{pair} * s_.queue_depth + cid] : s_.slot_prps[io.slot];
    if (frame && op == nvme::io_opcode::write) {
      const auto* page = reinterpret_cast<const detail::word16*>(io.data.data());
      copy_share(reinterpret_cast<detail::word16*>(frame), page, 0, 1);
    }
    qp.write(t, nvme::make_io(op, r.nsid, lba, r.blocks_per_page, prp.prp1, prp.prp2));
    st = qp.publish(t, deadline);
    if (st != status::ok) return status::queue_failed;
    const queues::completion_result done = qp.await(t, deadline);
    if (done.status == status::timeout) return fail_io(done.status, {}, controller, qp, t, op, r, lba, io);
    holds = true;
    if (s_.latency_histogram) count_latency(detail::now_ns() - start);
    if (!done.ok()) return fail_io(done.status, done.nvme_status, controller, qp, t, op, r, lba, io);
    return status::ok;
  }

  /// Adds one command to the latency histogram (relaxed: counts only).
  BAM_HD void count_latency(std::uint64_t ns) const {
    std::uint32_t b = 0;
    while (b + 1 < latency_buckets && (ns >> (b + 1)) != 0) ++b;
    detail::atomic<std::uint64_t, cuda::thread_scope_device>(s_.latency_histogram[b])
        .fetch_add(1, cuda::std::memory_order_relaxed);
  }

  /// This member's share of a page copy by `n` members (one thread: me = 0, n = 1): 16-byte
  /// words me, me + n, ..., a batch of uncached loads in flight per lane (detail::copy_words).
  BAM_HD void copy_share(detail::word16* dst, const detail::word16* src, unsigned me, unsigned n) const {
    detail::copy_words<detail::word_load::uncached>(dst, src, s_.page_bytes / sizeof(detail::word16), me, n);
  }

  BAM_HD status fail_io(status st, nvme::status_field nvme_status, std::uint32_t controller,
                        const queues::queue_pair_ref<>& qp, std::uint64_t ticket, nvme::io_opcode op,
                        const range_placement& r, std::uint64_t lba, const cache::page_io& io) const {
    fail(st, nvme_status, controller, qp.qid(), qp.cid_of(ticket),
         nvme::make_io(op, r.nsid, lba, r.blocks_per_page, 0, 0), io.key.range, io.key.page);
    return st;
  }
  BAM_HD void fail(status st, nvme::status_field nvme_status, std::uint32_t controller, std::uint16_t qid,
                   std::uint16_t cid, const nvme::command& cmd, std::uint32_t range, std::uint64_t page) const {
    device_error e{};
    e.kind = device_error_kind::command;
    e.status = std::uint8_t(st);
    e.sct = std::uint8_t(nvme_status.sct());
    e.sc = nvme_status.sc();
    e.opcode = cmd.opcode();
    e.controller = s_.controller_base + controller;
    e.qid = qid;
    e.cid = cid;
    e.nsid = cmd.nsid;
    e.range = range;
    e.lba = cmd.slba();
    e.n_blocks = cmd.opcode() == std::uint8_t(nvme::io_opcode::flush) ? 0 : cmd.n_blocks();
    e.index = page;
    record_error(s_.errors, e);
  }

  storage s_{};
};

static_assert(std::is_trivially_copyable_v<nvme_backend>);
static_assert(cache::staged_backend<nvme_backend>);

}  // namespace bam
