// SPDX-License-Identifier: Apache-2.0
// A test double for the controller side of one queue pair: a thread that fetches SQ entries
// when the tail doorbell moves and posts completions (optionally out of order, delayed,
// dropped or with an error), following the NVMe rules a real controller follows: phase tag,
// SQ head in every completion, never posting into a full CQ.
#pragma once

#include <bam/detail/atomic.hpp>
#include <bam/nvme/command.hpp>
#include <bam/nvme/completion.hpp>

#include "queues/queue_pair.hpp"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace bam::test {

/// Owns the memory of one queue pair, zero-initialised as the protocol requires.
struct queue_memory {
  explicit queue_memory(std::uint32_t depth, std::uint16_t qid = 1)
      : sq(depth), cq(depth), ready(depth), mailboxes(depth), control(std::make_unique<queues::queue_control>()) {
    storage.sq = sq.data();
    storage.cq = cq.data();
    storage.sq_doorbell.reg = &sq_tail_doorbell;
    storage.cq_doorbell.reg = &cq_head_doorbell;
    storage.control = control.get();
    storage.sq_ready = ready.data();
    storage.mailboxes = mailboxes.data();
    storage.depth = depth;
    storage.qid = qid;
  }
  queues::queue_pair_ref<> ref() const { return queues::queue_pair_ref<>(storage); }
  std::uint32_t sq_tail() { return detail::system_atomic<std::uint32_t>(sq_tail_doorbell).load(cuda::std::memory_order_acquire); }

  std::vector<nvme::command> sq;
  std::vector<nvme::completion> cq;
  std::vector<std::uint64_t> ready;
  std::vector<queues::mailbox> mailboxes;
  std::unique_ptr<queues::queue_control> control;
  alignas(64) std::uint32_t sq_tail_doorbell = 0;
  alignas(64) std::uint32_t cq_head_doorbell = 0;
  queues::queue_pair_storage storage{};
};

/// What the loopback does with one fetched command.
struct loopback_action {
  nvme::status_field status{};  ///< status to complete with
  bool drop = false;            ///< never complete
  bool duplicate = false;       ///< complete twice (a controller bug the driver must detect)
};

class loopback_controller {
 public:
  /// By default every command succeeds with dw0 = cdw10 (the submitter's tag).
  using policy = std::function<loopback_action(const nvme::command&)>;

  loopback_controller(queue_memory& q, unsigned reorder_window = 1, policy p = {})
      : q_(q), window_(reorder_window), policy_(std::move(p)), thread_([this] { run(); }) {}
  ~loopback_controller() {
    stop_ = true;
    thread_.join();
  }
  /// While stalled the controller fetches nothing.
  void stall(bool on) { stalled_ = on; }
  std::uint64_t fetched() const { return fetched_; }
  std::uint64_t doorbell_changes() const { return doorbell_changes_; }

 private:
  struct pending {
    nvme::command cmd;
    loopback_action action;
  };

  void run() {
    std::mt19937 rng(1234);
    std::uint32_t depth = q_.storage.depth;
    std::uint32_t head = 0, last_tail = 0, cq_tail = 0;
    bool phase = true;
    std::deque<pending> inflight;
    while (!stop_) {
      bool progress = false;
      const std::uint32_t tail = q_.sq_tail();
      if (tail != last_tail) {
        ++doorbell_changes_;
        last_tail = tail;
      }
      while (!stalled_ && head != tail) {
        const nvme::command cmd = q_.sq[head];
        head = (head + 1) % depth;
        ++fetched_;
        loopback_action a = policy_ ? policy_(cmd) : loopback_action{};
        if (!a.drop) inflight.push_back({cmd, a});
        progress = true;
      }
      // Complete one command from the first `window_` in flight (out of order when window_ > 1).
      while (!inflight.empty()) {
        const std::uint32_t cq_head = detail::system_atomic<std::uint32_t>(q_.cq_head_doorbell).load(cuda::std::memory_order_acquire);
        if ((cq_tail + 1) % depth == cq_head) break;  // CQ full: hold the completion
        const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, std::min<std::size_t>(window_, inflight.size()) - 1)(rng);
        const pending p = inflight[pick];
        inflight.erase(inflight.begin() + std::ptrdiff_t(pick));
        post(p, std::uint16_t(head), cq_tail, phase);
        if (p.action.duplicate && (cq_tail + 1) % depth != cq_head) post(p, std::uint16_t(head), cq_tail, phase);
        progress = true;
      }
      if (!progress) std::this_thread::yield();
    }
  }

  void post(const pending& p, std::uint16_t sq_head, std::uint32_t& cq_tail, bool& phase) {
    nvme::completion& e = q_.cq[cq_tail];
    detail::system_atomic<std::uint32_t>(e.dw0).store(p.cmd.cdw10, cuda::std::memory_order_relaxed);
    detail::system_atomic<std::uint64_t>(e.dw23).store(
        nvme::completion::make_dw23(sq_head, q_.storage.qid, p.cmd.cid(), p.action.status, phase),
        cuda::std::memory_order_release);
    cq_tail = (cq_tail + 1) % q_.storage.depth;
    if (cq_tail == 0) phase = !phase;
  }

  queue_memory& q_;
  unsigned window_;
  policy policy_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> stalled_{false};
  std::atomic<std::uint64_t> fetched_{0};
  std::atomic<std::uint64_t> doorbell_changes_{0};
  std::thread thread_;
};

}  // namespace bam::test
