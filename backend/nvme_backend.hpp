// SPDX-License-Identifier: Apache-2.0
// nvme_backend: how bam's page cache reaches NVMe. It maps a page of an array to a controller
// and an LBA (pages striped over controllers), drives the queue pair of the caller's SM, and
// moves the data through a pinned host frame (host-pinned tier: the controller writes the
// frame, the warp copies its frames into the VRAM slots together) or lets the controller DMA
// straight into the slot (peer-to-peer tier). The cache sees only the cache::staged_backend
// interface. Its parts: placement.hpp (striping), frames.hpp (frame and PRP addressing),
// latency_histogram.hpp and command_errors.hpp (device-error recording); the warp rounds of
// finish_reads are here.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/group_copy.hpp>
#include <bam/device_error.hpp>
#include <bam/lane_group.hpp>
#include <bam/nvme/command.hpp>
#include <bam/status.hpp>

#include "backend/command_errors.hpp"
#include "backend/frames.hpp"
#include "backend/latency_histogram.hpp"
#include "backend/placement.hpp"
#include "cache/backend.hpp"
#include "queues/prp.hpp"
#include "queues/queue_set.hpp"

#include <cuda/std/bit>
#include <nv/target>

#include <cstdint>
#include <type_traits>

namespace bam {

class nvme_backend {
 public:
  /// Everything the backend views; owned by bam::page_cache.
  struct storage {
    queues::queue_set_ref<> queues;
    const range_placement* ranges = nullptr;
    backend::frame_table data;  ///< where each command's data moves through
    std::uint32_t controller_base = 0;  ///< index of controller 0 in error messages
    /// Bound on each command, from its submission: past it the command counts as lost.
    std::uint64_t command_timeout_ns = 1'000'000'000;
    device_error* errors = nullptr;
    /// latency_buckets words: commands whose submit-to-completion time was in
    /// [2^b, 2^(b+1)) ns land in bucket b (the last bucket takes everything longer); may be null.
    std::uint64_t* latency_histogram = nullptr;
  };
  static constexpr std::uint32_t latency_buckets = backend::latency_buckets;

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
   * controller in service (its SM's, else the next: queue_set_ref::enter; enter_pair waits,
   * bounded, while every pair is being recovered) and reserves
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
    lane_mask todo = g.ballot(mine.active());
    if (todo == 0) return status::ok;  // the hit path: one ballot, nothing owed
    const lane_mask members = g.ballot(true);
    const lane_mask below = (lane_mask{1} << g.rank()) - 1;
    const unsigned me = unsigned(cuda::std::popcount(members & below));
    const unsigned n = unsigned(cuda::std::popcount(members));
    const std::uint32_t my_controller = mine.active() ? controller_of(mine.io.key) : 0;
    status result = status::ok;
    while (todo != 0) {
      const unsigned lead = unsigned(cuda::std::countr_zero(todo));
      const auto controller = std::uint32_t(g.shfl(my_controller, lead));
      const bool in_round = ((todo >> g.rank()) & 1) != 0 && my_controller == controller;
      const lane_mask round = g.ballot(in_round);
      std::uint32_t pair = 0;
      if (g.rank() == lead) pair = enter_pair(controller);
      pair = std::uint32_t(g.shfl(pair, lead));
      if (pair == queues::queue_set_ref<>::no_pair) {  // no pair came back within the bound
        if (in_round) result = status::queue_failed;
        todo &= ~round;
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
      lane_mask copies = g.ballot(in_round && st == status::ok && frame != nullptr);
      g.sync();
      while (copies != 0) {
        const unsigned j = unsigned(cuda::std::countr_zero(copies));
        copies &= copies - 1;
        const auto* src = reinterpret_cast<const detail::word16*>(g.shfl(reinterpret_cast<std::uint64_t>(frame), j));
        auto* dst = reinterpret_cast<detail::word16*>(g.shfl(reinterpret_cast<std::uint64_t>(mine.io.data.data()), j));
        s_.data.copy_share(dst, src, me, n);
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
    for (std::uint32_t c = 0; c < s_.queues.controllers(); ++c) {
      status st = status::queue_failed;
      const auto sent = [&] {
        st = flush_on(c, nsid);
        return st != status::queue_failed;
      };
      if (!sent()) retry_until(deadline_ns, wait, sent);
      if (st != status::ok) return st;
    }
    return status::ok;
  }

 private:
  /// How long a round waits for a pair in service while every pair of its controller recovers:
  /// the users of a failed pair leave within one command time limit, and the host re-creates it.
  BAM_HD std::uint64_t recovery_bound_ns() const { return 4 * s_.command_timeout_ns; }

  /// Enters a pair of `controller` in service; while every pair is being recovered, waits for
  /// one, bounded by recovery_bound_ns(). @return the pair, or no_pair after the bound.
  BAM_HD std::uint32_t enter_pair(std::uint32_t controller) const {
    std::uint32_t pair = 0;
    const auto entered = [&] {
      pair = s_.queues.enter(controller, detail::worker_id());
      return pair != queues::queue_set_ref<>::no_pair;
    };
    if (entered()) return pair;
    detail::backoff wait;
    retry_until(detail::now_ns() + recovery_bound_ns(), wait, entered);
    return pair;
  }

  /// Waits, bounded by recovery_bound_ns(), until `qp` has been recovered since `epoch`,
  /// helping re-created pairs back into service (the caller has left the pair).
  BAM_HD void await_recovery(const queues::queue_pair_ref<>& qp, std::uint32_t controller, std::uint32_t epoch) const {
    const std::uint64_t limit = detail::now_ns() + recovery_bound_ns();
    const auto recovered = [&] {
      if (qp.epoch() != epoch) return true;
      s_.queues.heal(controller);
      return false;
    };
    detail::backoff wait(1024, 65536);
    if (!recovered()) retry_until(limit, wait, recovered);
  }

  /**
   * @brief The bounded wait of enter_pair, await_recovery and flush_namespace, after a first
   * try failed: while `limit_ns` has not passed, backs off and tries again.
   * @return whether a try succeeded
   */
  template <class Try>
  BAM_HD static bool retry_until(std::uint64_t limit_ns, detail::backoff& wait, Try again) {
    while (detail::now_ns() < limit_ns) {
      wait();
      if (again()) return true;
    }
    return false;
  }

  /// One NVMe Flush of `nsid` on a pair of `controller` in service, its failure recorded;
  /// queue_failed, not recorded, when no pair was in service or the pair left service.
  BAM_HD status flush_on(std::uint32_t controller, std::uint32_t nsid) const {
    const std::uint32_t pair = s_.queues.enter(controller, detail::worker_id());
    if (pair == queues::queue_set_ref<>::no_pair) return status::queue_failed;
    const auto& qp = s_.queues.at(pair);
    const queues::completion_result r = qp.execute(nvme::make_flush(nsid), s_.command_timeout_ns);
    if (r.status != status::ok && r.status != status::queue_failed) {
      fail(r.status, r.nvme_status, controller, qp.qid(), 0, nvme::make_flush(nsid), 0, 0);
    }
    qp.leave();
    return r.status;
  }

  BAM_HD std::uint32_t controller_of(const cache::page_key& key) const {
    return backend::controller_of(s_.ranges[key.range], key);
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
    const std::uint64_t lba = backend::lba_of(r, io.key);
    const std::uint64_t start = detail::now_ns();
    const std::uint64_t deadline = start + s_.command_timeout_ns;
    bam::status st = qp.wait_for_slot(t, deadline);
    if (st != status::ok) return status::queue_failed;
    const std::uint32_t cid = qp.cid_of(t);
    frame = s_.data.frame(pair, cid);
    const queues::prp_pair prp = s_.data.prps(pair, cid, io.slot);
    if (frame && op == nvme::io_opcode::write) {
      const auto* page = reinterpret_cast<const detail::word16*>(io.data.data());
      s_.data.copy_share(reinterpret_cast<detail::word16*>(frame), page, 0, 1);
    }
    qp.write(t, nvme::make_io(op, r.nsid, lba, r.blocks_per_page, prp.prp1, prp.prp2));
    st = qp.publish(t, deadline);
    if (st != status::ok) return status::queue_failed;
    const queues::completion_result done = qp.await(t, deadline);
    if (done.status == status::timeout) return fail_io(done.status, {}, controller, qp, t, op, r, lba, io);
    holds = true;
    if (s_.latency_histogram) backend::count_latency(s_.latency_histogram, detail::now_ns() - start);
    if (!done.ok()) return fail_io(done.status, done.nvme_status, controller, qp, t, op, r, lba, io);
    return status::ok;
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
    backend::record_command_error(s_.errors, st, nvme_status, {s_.controller_base + controller, qid, cid}, cmd, range,
                                  page);
  }

  storage s_{};
};

static_assert(std::is_trivially_copyable_v<nvme_backend>);
static_assert(cache::staged_backend<nvme_backend>);

}  // namespace bam
