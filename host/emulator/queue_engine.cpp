// SPDX-License-Identifier: Apache-2.0
#include "host/emulator/queue_engine.hpp"

#include <bam/detail/atomic.hpp>
#include <bam/detail/clock.hpp>
#include <bam/nvme/command.hpp>

#include <algorithm>
#include <array>
#include <cstring>

namespace bam::host::detail {

namespace {
using doorbell_ref = bam::detail::system_atomic<std::uint32_t>;
using entry_ref = bam::detail::system_atomic<std::uint64_t>;

/// Min-heap order on due time.
constexpr auto later = [](const auto& a, const auto& b) { return a.due > b.due; };

/// Counts a doorbell value beyond the queue once per distinct bad value.
void note_invalid_doorbell(controller_core& core, std::uint32_t& last_invalid, std::uint32_t v) {
  if (v != last_invalid) {
    last_invalid = v;
    core.invalid_doorbells.fetch_add(1, std::memory_order_relaxed);
  }
}
}  // namespace

void queue_engine::adopt(std::vector<sq_slot*> sqs) {
  const auto kept = [&](const pending& p) {
    return std::find(sqs.begin(), sqs.end(), p.sq) != sqs.end();
  };
  std::erase_if(blocked_, [&](const pending& p) { return !kept(p); });
  std::erase_if(timers_, [&](const pending& p) { return !kept(p); });
  std::make_heap(timers_.begin(), timers_.end(), later);
  std::size_t capacity = 0;
  for (const sq_slot* sq : sqs) capacity += sq->size;
  timers_.reserve(capacity);
  blocked_.reserve(capacity);
  sqs_ = std::move(sqs);
}

bool queue_engine::poll() {
  bool progress = false;
  if (!timers_.empty()) progress |= post_due_timers();
  if (!blocked_.empty()) progress |= retry_blocked();
  for (sq_slot* sq : sqs_) progress |= serve(*sq);
  return progress;
}

bool queue_engine::abort(sq_slot& sq, std::uint16_t cid) {
  const auto held = std::find_if(timers_.begin(), timers_.end(),
                                 [&](const pending& p) { return p.sq == &sq && p.cid == cid; });
  if (held == timers_.end()) return false;
  pending p = *held;
  timers_.erase(held);
  std::make_heap(timers_.begin(), timers_.end(), later);
  p.due = 0;
  p.dw0 = 0;
  p.status = generic_error(nvme::generic_status::abort_requested);
  sq.counters.add_error();
  totals_.add_error();
  complete(p);
  return true;
}

bool queue_engine::post_due_timers() {
  const std::uint64_t now = bam::detail::now_ns();
  bool any = false;
  while (!timers_.empty() && timers_.front().due <= now) {
    std::pop_heap(timers_.begin(), timers_.end(), later);
    const pending p = timers_.back();
    timers_.pop_back();
    if (!try_post(p)) blocked_.push_back(p);
    any = true;
  }
  return any;
}

bool queue_engine::retry_blocked() {
  std::size_t kept = 0;
  for (const pending& p : blocked_) {
    if (!try_post(p)) blocked_[kept++] = p;
  }
  const bool any = kept != blocked_.size();
  blocked_.resize(kept);
  return any;
}

bool queue_engine::serve(sq_slot& sq) {
  if (sq.broken) return false;
  const std::uint32_t tail = doorbell_ref(*sq.tail_doorbell).load(cuda::memory_order_acquire);
  if (tail == sq.head) return false;
  if (tail >= sq.size) {
    note_invalid_doorbell(core_, sq.last_invalid_tail, tail);
    return false;
  }
  bool progress = false;
  while (sq.head != tail && sq.in_flight < sq.size) {
    // Fetch a batch, let the handler start the memory accesses of all of it, then execute:
    // the batch's cache and TLB misses overlap instead of following one another.
    std::array<nvme::command, fetch_batch> batch;
    std::size_t n = 0;
    for (; n < batch.size() && sq.head != tail && sq.in_flight < sq.size; ++n) {
      const std::byte* at =
          core_.iommu.translate(sq.base + std::uint64_t{sq.head} * sizeof(nvme::command),
                                sizeof(nvme::command));
      if (at == nullptr) {
        sq.broken = true;
        core_.set_fatal("submission queue memory is no longer mapped in the IOMMU");
        break;
      }
      std::memcpy(&batch[n], at, sizeof(nvme::command));
      sq.head = sq.head + 1 == sq.size ? 0 : sq.head + 1;
      ++sq.in_flight;
    }
    for (std::size_t i = 0; i < n; ++i) handler_.prefetch(batch[i]);
    for (std::size_t i = 0; i < n; ++i) run(sq, batch[i]);
    progress = true;
    if (sq.broken) break;
  }
  return progress;
}

fault_command queue_engine::describe(const sq_slot& sq, const nvme::command& cmd) const noexcept {
  fault_command c{set_, cmd.opcode(), sq.qid, cmd.nsid};
  const bool io_transfer = set_ == command_set::io &&
                           (cmd.opcode() == std::uint8_t(nvme::io_opcode::read) ||
                            cmd.opcode() == std::uint8_t(nvme::io_opcode::write));
  if (io_transfer) {
    c.has_lbas = true;
    c.slba = cmd.slba();
    c.n_blocks = cmd.n_blocks();
  }
  return c;
}

void queue_engine::run(sq_slot& sq, const nvme::command& cmd) {
  std::optional<fault_action> fault;
  if (!core_.faults->empty()) fault = core_.faults->consult(describe(sq, cmd));
  if (fault && fault->effect == fault_effect::drop) {
    sq.counters.add(0, false, true);
    totals_.add(0, false, true);
    --sq.in_flight;
    return;
  }
  command_result r;
  if (fault && fault->effect == fault_effect::status) {
    r.status = nvme::status_field::make(fault->sct, fault->sc).raw;
  } else {
    r = handler_.execute(cmd, sq);
  }
  if (fault && fault->effect == fault_effect::delay) {
    r.not_before_ns = std::max(r.not_before_ns, bam::detail::now_ns()) + fault->delay_ns;
  }
  sq.counters.add(r.bytes, r.status != 0, false);
  totals_.add(r.bytes, r.status != 0, false);
  complete({r.not_before_ns, &sq, r.dw0, cmd.cid(), r.status});
}

void queue_engine::complete(const pending& p) {
  if (p.due != 0 && p.due > bam::detail::now_ns()) {
    timers_.push_back(p);
    std::push_heap(timers_.begin(), timers_.end(), later);
  } else if (!try_post(p)) {
    blocked_.push_back(p);
  }
}

bool queue_engine::try_post(const pending& p) {
  sq_slot& sq = *p.sq;
  cq_slot& cq = *sq.cq;
  const std::uint32_t next = cq.tail + 1 == cq.size ? 0 : cq.tail + 1;
  if (next == cq.head) {
    const std::uint32_t head = doorbell_ref(*cq.head_doorbell).load(cuda::memory_order_acquire);
    if (head >= cq.size) {
      note_invalid_doorbell(core_, cq.last_invalid_head, head);
      return false;
    }
    cq.head = head;
    if (next == head) return false;  // full: hold the completion
  }
  --sq.in_flight;
  std::byte* at = core_.iommu.translate(cq.base + std::uint64_t{cq.tail} * sizeof(nvme::completion),
                                        sizeof(nvme::completion));
  if (at == nullptr) {
    core_.set_fatal("completion queue memory is no longer mapped in the IOMMU");
    return true;  // the completion is lost, as on a controller whose DMA write faulted
  }
  const std::uint64_t dw01 = p.dw0;  // dw1 is reserved: 0
  const std::uint64_t dw23 = nvme::completion::make_dw23(
      std::uint16_t(sq.head), sq.qid, p.cid, nvme::status_field{p.status}, cq.phase);
  auto* entry = reinterpret_cast<std::uint64_t*>(at);
  entry_ref(entry[0]).store(dw01, cuda::memory_order_relaxed);
  entry_ref(entry[1]).store(dw23, cuda::memory_order_release);
  cq.tail = next;
  if (next == 0) cq.phase = !cq.phase;
  return true;
}

}  // namespace bam::host::detail
