// SPDX-License-Identifier: Apache-2.0
// queue_pair_ref: one NVMe submission queue and its completion queue, driven concurrently by
// many threads (GPU threads, or std::threads in CPU tests) with no global lock.
#pragma once

#include <bam/config.hpp>
#include <bam/detail/atomic.hpp>
#include <bam/detail/clock.hpp>
#include <bam/nvme/command.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/status.hpp>

#include "queues/doorbell.hpp"
#include "queues/pair_service.hpp"

#include <cuda/std/span>

#include <cstdint>
#include <type_traits>

namespace bam::queues {

/**
 * @brief Control words of one queue pair, in memory the driving threads share (VRAM on a GPU).
 *
 * Tickets number submissions 0, 1, 2, ... for the life of the queue pair; ticket t uses SQ slot
 * and command id `t % depth`. Counters are absolute (never wrapped) so that comparisons are
 * plain `<`. Zero-initialised memory is the initial state.
 */
struct queue_control {
  alignas(cache_line_bytes) std::uint64_t sq_reserved = 0;  ///< tickets handed out
  alignas(cache_line_bytes) std::uint64_t sq_committed = 0; ///< tickets < this are published by the doorbell
  std::uint32_t sq_lock = 0;                                ///< held while advancing the SQ doorbell
  alignas(cache_line_bytes) std::uint64_t sq_head = 0;      ///< controller fetched tickets < this (from CQE.sqhd)
  std::uint64_t cq_head = 0;                                ///< completions consumed
  std::uint32_t cq_lock = 0;                                ///< held while draining the CQ
  alignas(cache_line_bytes) std::uint32_t service = 0;      ///< pair_service: state and users
  std::uint32_t epoch = 0;                                  ///< recoveries completed
};
static_assert(std::is_trivially_copyable_v<queue_control>);

/**
 * @brief Where the completion of one command id is handed to the thread that submitted it.
 *
 * With g = ticket / depth (the generation of the command id), `seq` steps through
 * 4g (free for ticket g*depth+cid) → 4g+1 (submitted) → 4g+2 (completion in `result`) →
 * 4g+4 (consumed: free for the next generation). A completion for an id that is not in the
 * submitted state is a controller fault. Zero-initialised memory is the initial state.
 */
struct mailbox {
  std::uint64_t seq = 0;
  std::uint64_t result = 0;  ///< dw0 << 32 | status halfword (status << 1 | phase)
};

/// What a waiter gets back: bam's status and, for completed commands, the NVMe status and dw0.
struct completion_result {
  bam::status status = bam::status::ok;
  nvme::status_field nvme_status{};
  std::uint32_t dw0 = 0;
  [[nodiscard]] BAM_HD bool ok() const { return status == bam::status::ok; }
};

/// Memory of one queue pair, provided by its owner (host/controller) — views only.
struct queue_pair_storage {
  nvme::command* sq = nullptr;        ///< `depth` entries the controller reads (DMA memory)
  nvme::completion* cq = nullptr;     ///< `depth` entries the controller writes (DMA memory)
  doorbell_ref sq_doorbell{};         ///< SQ tail doorbell
  doorbell_ref cq_doorbell{};         ///< CQ head doorbell
  queue_control* control = nullptr;   ///< zeroed
  std::uint64_t* sq_ready = nullptr;  ///< `depth` zeroed words: ticket + 1 once its entry is written
  mailbox* mailboxes = nullptr;       ///< `depth` zeroed mailboxes, one per command id
  std::uint32_t depth = 0;            ///< entries in the SQ and in the CQ (2 ..= 65536)
  std::uint16_t qid = 0;              ///< queue id at the controller (SQ and CQ share it)
  /// Host-visible recovery record (pinned host memory); null for a pair nobody recovers (the
  /// admin queue, queue tests): a failure then stays until restart().
  queue_health* health = nullptr;
};

/**
 * @brief Trivially copyable view of a queue pair; pass it to kernels by value.
 *
 * Protocol (all counters absolute, t = ticket):
 * 1. `submit` takes t with a fetch_add, waits until SQ slot and command id t % depth are free —
 *    the controller has fetched ticket t - (depth - 1) (from CQE.sqhd: at most depth - 1
 *    entries sit in the ring, so a full ring never looks empty) and the previous owner of the
 *    command id consumed its completion — writes the entry, and marks it ready.
 * 2. Whoever holds `sq_lock` advances the doorbell over every consecutive ready entry, so one
 *    doorbell write publishes a batch (doorbell coalescing). A submitter returns only once its
 *    ticket is published, so no entry is stranded.
 * 3. Whoever holds `cq_lock` drains the CQ by phase bit, hands each completion to its command
 *    id's mailbox, advances the SQ head from CQE.sqhd, and writes the CQ head doorbell once.
 * 4. `wait` spins on its mailbox, taking a turn at draining the CQ while it waits.
 * Every wait is bounded by a deadline; a timeout marks the pair failed (a late completion could
 * otherwise land in a buffer already reused): submissions and waits for a slot or the doorbell
 * then end with queue_failed (the caller goes to another pair), waits for a completion go on
 * until it comes or their own deadline passes.
 *
 * Recovery (pairs with a queue_health record; see pair_service.hpp for the cycle): users
 * bracket their use with try_enter() / leave(); the last user of a failed pair reports it
 * quiet; after the host re-created the queues, the next try_enter() that finds itself alone
 * resets the control words (restart()) and returns the pair to service. Tickets, command ids
 * and mailbox generations start again from zero, so nothing of the old cycle is waited for.
 *
 * @tparam Scope scope of the control words: thread_scope_device for GPU threads (the CQ and
 * doorbells are always accessed at system scope).
 * @note Progress: a thread must wait for its ticket before it has submitted `depth` more
 * commands on the same pair, or it can wait on its own command id.
 */
template <cuda::thread_scope Scope = cuda::thread_scope_device>
class queue_pair_ref {
 public:
  queue_pair_ref() = default;
  BAM_HD explicit queue_pair_ref(const queue_pair_storage& s) : s_(s) {}

  [[nodiscard]] BAM_HD std::uint16_t qid() const { return s_.qid; }
  [[nodiscard]] BAM_HD std::uint32_t depth() const { return s_.depth; }
  /// True while the pair is not in service (failed, or being reset).
  [[nodiscard]] BAM_HD bool failed() const {
    return service().state() != pair_state::in_service;
  }
  /// The pair's service word (relaxed snapshot).
  [[nodiscard]] BAM_HD pair_service service() const {
    return pair_service(atomic<std::uint32_t>(s_.control->service).load(cuda::std::memory_order_relaxed));
  }
  /// Recoveries this pair completed.
  [[nodiscard]] BAM_HD std::uint32_t epoch() const {
    return atomic<std::uint32_t>(s_.control->epoch).load(cuda::std::memory_order_relaxed);
  }

  /**
   * @brief Registers the caller as a user of the pair if it is in service.
   * @return true: the caller may submit and wait on the pair until leave(); false: it may not
   * (and is not registered)
   * @note One acquire fetch_add registers and reads the state together. A caller that finds the
   * pair failed, with no other user and the host's re-creation current, claims the reset with a
   * CAS (failed, 1 user → resetting), restarts the control words, advances the epoch and
   * returns the pair to service with a release fetch_add; the next users' acquire sees the
   * reset words. No other thread touches the control words meanwhile: users enter only in
   * service, and the failed pair had none (the host waited for `quiesced` before re-creating).
   */
  BAM_HD bool try_enter() const {
    auto word = atomic<std::uint32_t>(s_.control->service);
    const pair_service before(word.fetch_add(1, cuda::std::memory_order_acquire));
    if (before.state() == pair_state::in_service) return true;
    if (before.state() == pair_state::failed && before.users() == 0 && s_.health != nullptr) {
      const std::uint32_t e = epoch();
      if (detail::system_atomic<std::uint32_t>(s_.health->recreated).load(cuda::std::memory_order_acquire) == e + 1) {
        std::uint32_t alone = pair_service::make(pair_state::failed, 1).raw();
        if (word.compare_exchange_strong(alone, pair_service::make(pair_state::resetting, 1).raw(),
                                         cuda::std::memory_order_acquire, cuda::std::memory_order_relaxed)) {
          restart();
          atomic<std::uint32_t>(s_.control->epoch).store(e + 1, cuda::std::memory_order_relaxed);
          word.fetch_add(pair_service::transition(pair_state::resetting, pair_state::in_service),
                         cuda::std::memory_order_release);
          return true;
        }
      }
    }
    leave();
    return false;
  }

  /**
   * @brief Ends a use begun by a successful (or failed) try_enter.
   * @note Release fetch_sub: the caller's uses of the pair happen before the host's recovery
   * (which learns of them through `quiesced`). The user that leaves a failed pair empty writes
   * `quiesced` (system-scope release); several may, with the same value.
   */
  BAM_HD void leave() const {
    const pair_service before(atomic<std::uint32_t>(s_.control->service).fetch_sub(1, cuda::std::memory_order_acq_rel));
    if (before.state() == pair_state::failed && before.users() == 1 && s_.health != nullptr) {
      detail::system_atomic<std::uint32_t>(s_.health->quiesced).store(epoch() + 1, cuda::std::memory_order_release);
    }
  }

  /**
   * @brief Takes the pair out of service because the command of `cid` did not complete in time
   * (or the controller broke the protocol: cid = queue_health::no_cid).
   * @return status::timeout, for the caller to pass on
   * @note The first failer of an epoch wins a CAS (in service → failed, users kept), counts the
   * tells the host (lost_cid, then `failed`, a
   * system-scope release). Later failers of the same epoch change nothing.
   */
  BAM_HD bam::status fail(std::uint32_t cid = queue_health::no_cid) const {
    auto word = atomic<std::uint32_t>(s_.control->service);
    std::uint32_t seen = word.load(cuda::std::memory_order_relaxed);
    while (pair_service(seen).state() == pair_state::in_service) {
      if (word.compare_exchange_weak(seen, seen + pair_service::transition(pair_state::in_service, pair_state::failed),
                                     cuda::std::memory_order_acq_rel, cuda::std::memory_order_relaxed)) {
        if (s_.health) {
          detail::system_atomic<std::uint32_t>(s_.health->lost_cid).store(cid, cuda::std::memory_order_relaxed);
          detail::system_atomic<std::uint32_t>(s_.health->failed).store(epoch() + 1, cuda::std::memory_order_release);
        }
        break;
      }
    }
    return bam::status::timeout;
  }

  /**
   * @brief Owner only (no other thread uses the pair): forgets every ticket, command id and
   * completion, as for freshly created queues: control words, ready words and mailboxes zeroed,
   * every CQ entry's phase cleared. The service word and epoch are left alone.
   * @note Called by try_enter's resetter, or by a host owner after re-creating the queues of a
   * pair it drives itself. The CQ stores are system scope and fenced, so the controller's first
   * completion of the new cycle lands on a cleared ring.
   */
  BAM_HD void restart() const {
    queue_control& c = *s_.control;
    for (std::uint64_t* w : {&c.sq_reserved, &c.sq_committed, &c.sq_head, &c.cq_head}) {
      atomic<std::uint64_t>(*w).store(0, cuda::std::memory_order_relaxed);
    }
    atomic<std::uint32_t>(c.sq_lock).store(0, cuda::std::memory_order_relaxed);
    atomic<std::uint32_t>(c.cq_lock).store(0, cuda::std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < s_.depth; ++i) {
      atomic<std::uint64_t>(s_.sq_ready[i]).store(0, cuda::std::memory_order_relaxed);
      atomic<std::uint64_t>(s_.mailboxes[i].seq).store(0, cuda::std::memory_order_relaxed);
      detail::system_atomic<std::uint64_t>(s_.cq[i].dw23).store(0, cuda::std::memory_order_relaxed);
    }
    cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_system);
  }
  /// Command id that ticket `t` uses.
  [[nodiscard]] BAM_HD std::uint16_t cid_of(std::uint64_t t) const { return std::uint16_t(t % s_.depth); }

  /**
   * @brief Places `cmd` (command id overwritten) in the SQ and publishes it to the controller.
   * @param[out] ticket identifies the command for wait()
   * @param deadline_ns absolute detail::now_ns() value after which the call gives up
   * @return ok; timeout (the pair is then marked failed); queue_failed (the pair is out of
   * service: nothing was submitted that anybody will wait for)
   * @note Acquire/release on the ready words and the doorbell lock order every entry's bytes
   * before the system-scope release store of the doorbell that publishes it.
   */
  BAM_HD bam::status submit(const nvme::command& cmd, std::uint64_t& ticket, std::uint64_t deadline_ns) const {
    if (failed()) return bam::status::queue_failed;
    const std::uint64_t t = reserve();
    bam::status s = wait_for_slot(t, deadline_ns);
    if (s != bam::status::ok) return s;
    write(t, cmd);
    s = publish(t, deadline_ns);
    if (s == bam::status::ok) ticket = t;
    return s;
  }

  // The steps of submit(), public so that tests can interleave them deterministically.

  /// Step 1: takes the next ticket.
  BAM_HD std::uint64_t reserve() const { return reserve(1); }
  /**
   * @brief Step 1 for a group: takes `n` consecutive tickets and returns the first.
   * @note A group that reserves together and releases together after a collective cannot
   * deadlock with other such groups when depth > n: every ticket then waits only for
   * tickets of earlier reservations. Groups that reserve one by one can: a lane holding a slot
   * at the collective may wait for a peer whose later ticket waits for that very slot.
   */
  BAM_HD std::uint64_t reserve(std::uint32_t n) const {
    return atomic<std::uint64_t>(s_.control->sq_reserved).fetch_add(n, cuda::std::memory_order_relaxed);
  }

  /**
   * @brief Step 2: waits until ticket `t` may use its SQ slot and command id: the controller
   * has fetched ticket t - (depth - 1), and ticket t - depth's completion was consumed.
   * @note Acquire loads pair with the release stores in wait() and poll().
   */
  BAM_HD bam::status wait_for_slot(std::uint64_t t, std::uint64_t deadline_ns) const {
    mailbox& m = s_.mailboxes[t % s_.depth];
    const std::uint64_t free_seq = 4 * (t / s_.depth);
    detail::backoff pause;
    while (atomic<std::uint64_t>(m.seq).load(cuda::std::memory_order_acquire) != free_seq ||
           t >= atomic<std::uint64_t>(s_.control->sq_head).load(cuda::std::memory_order_acquire) + s_.depth - 1) {
      if (poll() == 0) {
        if (failed()) return bam::status::queue_failed;
        if (expired(deadline_ns)) return fail(cid_of(t));
        pause();
      }
    }
    return bam::status::ok;
  }

  /**
   * @brief Step 3: marks the command id submitted, writes the entry of ticket `t` (command
   * id = its slot) and marks it ready.
   * @note The relaxed store of the mailbox state is ordered before the controller can complete
   * the command by the release store of the ready word, which precedes the doorbell.
   */
  BAM_HD void write(std::uint64_t t, nvme::command cmd) const {
    const std::uint32_t slot = std::uint32_t(t % s_.depth);
    atomic<std::uint64_t>(s_.mailboxes[slot].seq).store(4 * (t / s_.depth) + 1, cuda::std::memory_order_relaxed);
    cmd.set_cid(std::uint16_t(slot));
    s_.sq[slot] = cmd;
    atomic<std::uint64_t>(s_.sq_ready[slot]).store(t + 1, cuda::std::memory_order_release);
  }

  /**
   * @brief Step 4: returns once ticket `t` is published by the SQ tail doorbell.
   *
   * The holder of sq_lock advances the doorbell over every consecutive ready entry with one
   * write (doorbell coalescing); a caller that finds the lock taken waits for the holder or
   * takes the lock next, so no ready entry is left unpublished.
   * @note The acquire loads of ready words order the entries' bytes, written by any thread,
   * before the doorbell's system-scope release store.
   */
  BAM_HD bam::status publish(std::uint64_t t, std::uint64_t deadline_ns) const {
    queue_control& c = *s_.control;
    detail::backoff pause;
    while (atomic<std::uint64_t>(c.sq_committed).load(cuda::std::memory_order_acquire) <= t) {
      if (detail::try_lock<Scope>(c.sq_lock)) {
        const std::uint64_t first = atomic<std::uint64_t>(c.sq_committed).load(cuda::std::memory_order_relaxed);
        std::uint64_t end = first;
        while (atomic<std::uint64_t>(s_.sq_ready[end % s_.depth]).load(cuda::std::memory_order_acquire) == end + 1) {
          ++end;
        }
        if (end != first) {
          s_.sq_doorbell.ring(std::uint32_t(end % s_.depth));
          atomic<std::uint64_t>(c.sq_committed).store(end, cuda::std::memory_order_release);
        }
        detail::unlock<Scope>(c.sq_lock);
        // An earlier ticket that is never written (its submitter left a failed pair) blocks the
        // doorbell: this caller leaves too.
        if (end == first) {
          if (failed()) return bam::status::queue_failed;
          if (expired(deadline_ns)) return fail();
          pause();
        }
      } else {
        if (failed()) return bam::status::queue_failed;
        if (expired(deadline_ns)) return fail();
        pause();
      }
    }
    return bam::status::ok;
  }

  /**
   * @brief Waits for the completion of `ticket` and frees its command id: await() + release().
   * @return status ok when the controller completed the command successfully, io_error (with
   * the NVMe status) when it completed it with an error, timeout (the pair is then failed).
   */
  BAM_HD completion_result wait(std::uint64_t ticket, std::uint64_t deadline_ns) const {
    const completion_result r = await(ticket, deadline_ns);
    if (r.status != bam::status::timeout) release(ticket);
    return r;
  }

  /**
   * @brief Waits for the completion of `ticket`, keeping its command id (and so any buffer the
   * caller indexes by command id) owned until release().
   * @note The acquire load of the mailbox sequence pairs with the draining thread's release store.
   */
  BAM_HD completion_result await(std::uint64_t ticket, std::uint64_t deadline_ns) const {
    mailbox& m = s_.mailboxes[ticket % s_.depth];
    const std::uint64_t done = 4 * (ticket / s_.depth) + 2;
    detail::backoff pause;
    while (atomic<std::uint64_t>(m.seq).load(cuda::std::memory_order_acquire) != done) {
      if (poll() == 0) {
        if (atomic<std::uint64_t>(m.seq).load(cuda::std::memory_order_acquire) == done) break;
        if (expired(deadline_ns)) return completion_result{fail(cid_of(ticket)), {}, 0};
        pause();
      }
    }
    const std::uint64_t r = atomic<std::uint64_t>(m.result).load(cuda::std::memory_order_relaxed);
    const nvme::status_field st{std::uint16_t(r & 0xfffe)};
    return completion_result{st.ok() ? bam::status::ok : bam::status::io_error, st, std::uint32_t(r >> 32)};
  }

  /// Frees the command id of a completed `ticket` for its next generation (release store).
  BAM_HD void release(std::uint64_t ticket) const {
    atomic<std::uint64_t>(s_.mailboxes[ticket % s_.depth].seq)
        .store(4 * (ticket / s_.depth) + 4, cuda::std::memory_order_release);
  }

  /// submit() then wait(), under one time limit.
  BAM_HD completion_result execute(const nvme::command& cmd, std::uint64_t timeout_ns) const {
    const std::uint64_t deadline = detail::now_ns() + timeout_ns;
    std::uint64_t t = 0;
    const bam::status s = submit(cmd, t, deadline);
    if (s != bam::status::ok) return completion_result{s, {}, 0};
    return wait(t, deadline);
  }

  /**
   * @brief Drains the CQ if no other thread is doing so; returns the completions consumed.
   * @note The phase-bit word of an entry is read with one system-scope acquire load of its last
   * 8 bytes (SQ head, SQ id, command id, status) — the controller writes them last — so the
   * fields read belong to the same completion. Mailbox results are published with a release
   * store of the sequence word; the CQ head doorbell is written once per drain.
   */
  BAM_HD unsigned poll() const {
    queue_control& c = *s_.control;
    if (!detail::try_lock<Scope>(c.cq_lock)) return 0;
    const std::uint64_t first = atomic<std::uint64_t>(c.cq_head).load(cuda::std::memory_order_relaxed);
    std::uint64_t head = first;
    std::uint64_t sq_head = atomic<std::uint64_t>(c.sq_head).load(cuda::std::memory_order_relaxed);
    bool protocol_error = false;
    for (;;) {
      nvme::completion& e = s_.cq[head % s_.depth];
      const std::uint64_t phase = ((head / s_.depth) & 1) ^ 1;
      const std::uint64_t dw23 = detail::system_atomic<std::uint64_t>(e.dw23).load(cuda::std::memory_order_acquire);
      if (nvme::completion::phase_of(dw23) != (phase != 0)) break;
      const std::uint32_t cid = nvme::completion::cid_of(dw23);
      const std::uint32_t sqhd = nvme::completion::sq_head_of(dw23);
      const std::uint32_t dw0 = detail::system_atomic<std::uint32_t>(e.dw0).load(cuda::std::memory_order_relaxed);
      ++head;
      if (cid >= s_.depth || sqhd >= s_.depth) {  // not a completion of ours: controller fault
        protocol_error = true;
        continue;
      }
      mailbox& m = s_.mailboxes[cid];
      const std::uint64_t seq = atomic<std::uint64_t>(m.seq).load(cuda::std::memory_order_relaxed);
      if (seq % 4 != 1) {  // no command with this id is outstanding: spurious or duplicate
        protocol_error = true;
        continue;
      }
      atomic<std::uint64_t>(m.result).store((std::uint64_t{dw0} << 32) | (dw23 >> 48), cuda::std::memory_order_relaxed);
      atomic<std::uint64_t>(m.seq).store(seq + 1, cuda::std::memory_order_release);
      // The reported head moved forward by less than depth since we last looked.
      sq_head += (sqhd + s_.depth - std::uint32_t(sq_head % s_.depth)) % s_.depth;
    }
    if (head != first) {
      atomic<std::uint64_t>(c.sq_head).store(sq_head, cuda::std::memory_order_release);
      atomic<std::uint64_t>(c.cq_head).store(head, cuda::std::memory_order_relaxed);
      s_.cq_doorbell.ring(std::uint32_t(head % s_.depth));
    }
    detail::unlock<Scope>(c.cq_lock);
    if (protocol_error) fail();
    return unsigned(head - first);
  }

 private:
  template <class T>
  using atomic = detail::atomic<T, Scope>;

  BAM_HD static bool expired(std::uint64_t deadline_ns) { return detail::now_ns() > deadline_ns; }

  queue_pair_storage s_{};
};

static_assert(std::is_trivially_copyable_v<queue_pair_ref<>>);

}  // namespace bam::queues
