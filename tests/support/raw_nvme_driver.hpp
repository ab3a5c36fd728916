// SPDX-License-Identifier: Apache-2.0
// A deliberately small, synchronous NVMe driver for testing the emulated controller: it pokes
// registers, writes raw submission entries into queue memory, rings doorbells and polls
// completion entries, with no queue machinery of its own to hide a controller bug behind.
#pragma once

#include <bam/detail/atomic.hpp>
#include <bam/error.hpp>
#include <bam/host/drivers/bar.hpp>
#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/memory.hpp>
#include <bam/nvme/spec.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

namespace bam::test {

/**
 * @brief Minimal register-level driver of one controller, for one test thread per queue.
 *
 * Ordering: entries and data are plain stores, published by the doorbell's release store;
 * completions are read with one acquire load of their last 8 bytes (phase included), and
 * consumed entries are handed back by a release store to the CQ head doorbell.
 */
class raw_nvme_driver {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds default_timeout{20'000};

  /// One SQ/CQ pair with qid == cqid, as this driver creates them.
  struct queue_pair {
    std::uint16_t qid = 0;
    std::uint32_t entries = 0;
    dma_buffer sq;
    dma_buffer cq;
    std::uint32_t sq_tail = 0;
    std::uint32_t cq_head = 0;
    bool phase = true;
    std::uint16_t next_cid = 0;
  };

  raw_nvme_driver(const host::emulated_controller& ctrl, memory_resource& dma)
      : bar_(ctrl.bar()), dma_(dma), cap_{bar_.read64(nvme::reg::cap)} {}

  [[nodiscard]] const host::bar_view& bar() const noexcept { return bar_; }
  [[nodiscard]] nvme::cap_register cap() const noexcept { return cap_; }
  [[nodiscard]] nvme::csts_register csts() const { return nvme::csts_register{bar_.read32(nvme::reg::csts)}; }
  /// DMA memory aligned to the memory page size the controller was (last) enabled with.
  [[nodiscard]] dma_buffer alloc(std::size_t bytes) {
    return dma_.allocate(bytes, memory_kind::host, page_bytes_);
  }

  /// Polls CSTS until `pred` holds; false on timeout.
  template <class Pred>
  bool wait_csts(Pred pred, std::chrono::milliseconds timeout = default_timeout) const {
    const auto deadline = clock::now() + timeout;
    while (!pred(csts())) {
      if (clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  /// Writes AQA/ASQ/ACQ for a fresh admin pair of `entries` and sets CC (EN included) to `cc`.
  void program_admin(std::uint32_t entries, nvme::cc_register cc) {
    page_bytes_ = std::size_t{4096} << std::min(cc.mps(), 4u);
    admin_ = make_pair(0, entries);
    bar_.write32(nvme::reg::aqa, nvme::aqa_register::make(entries, entries).raw);
    bar_.write64(nvme::reg::asq, admin_.sq.bus_at(0));
    bar_.write64(nvme::reg::acq, admin_.cq.bus_at(0));
    bar_.write32(nvme::reg::cc, cc.raw);
  }
  /// The CC value a conforming driver enables with: NVM, page 4 KiB << mps, 64/16-byte entries.
  [[nodiscard]] static nvme::cc_register enabling_cc(std::uint32_t mps = 0) {
    nvme::cc_register cc{};
    cc.set_css(0).set_mps(mps).set_iosqes(6).set_iocqes(4).set_en(true);
    return cc;
  }
  /// Brings the controller up with an admin pair of `entries`; throws unless CSTS.RDY follows.
  void enable(std::uint32_t entries = 16, std::uint32_t mps = 0) {
    program_admin(entries, enabling_cc(mps));
    if (!wait_csts([](nvme::csts_register c) { return c.rdy() || c.cfs(); }) || csts().cfs()) {
      throw timeout_error("raw_nvme_driver: CSTS.RDY did not follow CC.EN", {});
    }
  }
  /// Clears CC.EN and waits for the reset to finish: CSTS.RDY and CSTS.CFS both clear (RDY
  /// alone says nothing when a failed enable never set it).
  void disable() {
    bar_.write32(nvme::reg::cc, 0);
    if (!wait_csts([](nvme::csts_register c) { return !c.rdy() && !c.cfs(); })) {
      throw timeout_error("raw_nvme_driver: CSTS.RDY/CFS did not clear after CC.EN = 0", {});
    }
  }

  [[nodiscard]] queue_pair& admin_queue() noexcept { return admin_; }
  /// Runs one admin command and waits for its completion.
  nvme::completion admin(nvme::command cmd) { return execute(admin_, cmd); }

  /// Allocates rings for a pair without telling the controller.
  [[nodiscard]] queue_pair make_pair(std::uint16_t qid, std::uint32_t entries) {
    queue_pair q;
    q.qid = qid;
    q.entries = entries;
    q.sq = alloc(std::size_t{entries} * sizeof(nvme::command));
    q.cq = alloc(std::size_t{entries} * sizeof(nvme::completion));
    return q;
  }
  /// Creates I/O CQ `qid` and SQ `qid` on it; throws unless both succeed.
  [[nodiscard]] queue_pair create_io_pair(std::uint16_t qid, std::uint32_t entries) {
    queue_pair q = make_pair(qid, entries);
    expect_ok(admin(nvme::make_create_io_cq(qid, entries, q.cq.bus_at(0))), "create I/O CQ");
    expect_ok(admin(nvme::make_create_io_sq(qid, entries, q.sq.bus_at(0), qid)), "create I/O SQ");
    return q;
  }
  /// Deletes SQ then CQ `q.qid`; throws unless both succeed.
  void delete_io_pair(const queue_pair& q) {
    expect_ok(admin(nvme::make_delete_io_sq(q.qid)), "delete I/O SQ");
    expect_ok(admin(nvme::make_delete_io_cq(q.qid)), "delete I/O CQ");
  }

  /// Writes `cmd` (with the next command id) at the SQ tail without ringing; returns the
  /// command id. The caller keeps fewer than `entries` commands outstanding.
  std::uint16_t enqueue(queue_pair& q, nvme::command cmd) {
    const std::uint16_t cid = q.next_cid++;
    cmd.set_cid(cid);
    std::memcpy(q.sq.host() + std::size_t{q.sq_tail} * sizeof cmd, &cmd, sizeof cmd);
    q.sq_tail = q.sq_tail + 1 == q.entries ? 0 : q.sq_tail + 1;
    return cid;
  }
  /// Publishes every enqueued entry with one SQ tail doorbell write.
  void ring_sq(const queue_pair& q) { ring(q.qid, false, q.sq_tail); }
  /// enqueue + ring_sq.
  std::uint16_t submit(queue_pair& q, const nvme::command& cmd) {
    const std::uint16_t cid = enqueue(q, cmd);
    ring_sq(q);
    return cid;
  }
  /// Writes a raw value to a doorbell (release store).
  void ring(std::uint16_t qid, bool is_cq, std::uint32_t value) {
    detail::system_atomic<std::uint32_t>(*bar_.host_doorbell(qid, is_cq, cap_.dstrd()))
        .store(value, cuda::std::memory_order_release);
  }

  /// The completion at `index` of `q`'s CQ if its phase says it is new on the current pass.
  [[nodiscard]] std::optional<nvme::completion> peek(const queue_pair& q, std::uint32_t index,
                                                     bool phase) const {
    auto* entry = reinterpret_cast<std::uint64_t*>(q.cq.host() + std::size_t{index} * 16);
    const std::uint64_t dw23 =
        detail::system_atomic<std::uint64_t>(entry[1]).load(cuda::std::memory_order_acquire);
    if (nvme::completion::phase_of(dw23) != phase) return std::nullopt;
    const std::uint64_t dw01 =
        detail::system_atomic<std::uint64_t>(entry[0]).load(cuda::std::memory_order_relaxed);
    return nvme::completion{std::uint32_t(dw01), std::uint32_t(dw01 >> 32), dw23};
  }
  /// Consumes every new completion, calling fn(completion) for each, and hands their entries
  /// back with one CQ head doorbell write; returns how many there were.
  template <class Fn>
  std::size_t drain(queue_pair& q, Fn&& fn) {
    std::size_t n = 0;
    while (auto c = peek(q, q.cq_head, q.phase)) {
      q.cq_head = q.cq_head + 1 == q.entries ? 0 : q.cq_head + 1;
      if (q.cq_head == 0) q.phase = !q.phase;
      fn(*c);
      ++n;
    }
    if (n != 0) ring(q.qid, true, q.cq_head);
    return n;
  }
  /// Consumes one completion if there is one, handing its entry back to the controller.
  std::optional<nvme::completion> poll(queue_pair& q) {
    auto c = peek(q, q.cq_head, q.phase);
    if (!c) return c;
    q.cq_head = q.cq_head + 1 == q.entries ? 0 : q.cq_head + 1;
    if (q.cq_head == 0) q.phase = !q.phase;
    ring(q.qid, true, q.cq_head);
    return c;
  }
  /// Waits for the next completion; throws bam::timeout_error.
  nvme::completion wait(queue_pair& q, std::chrono::milliseconds timeout = default_timeout) {
    const auto deadline = clock::now() + timeout;
    for (;;) {
      if (auto c = poll(q)) return *c;
      if (clock::now() > deadline) {
        throw timeout_error("raw_nvme_driver: no completion on queue " + std::to_string(q.qid),
                            {0, q.qid});
      }
      std::this_thread::yield();
    }
  }
  /// submit + wait, checking that the completion is the command's.
  nvme::completion execute(queue_pair& q, const nvme::command& cmd,
                           std::chrono::milliseconds timeout = default_timeout) {
    const std::uint16_t cid = submit(q, cmd);
    const nvme::completion c = wait(q, timeout);
    if (c.cid() != cid || c.sq_id() != q.qid) {
      throw error("raw_nvme_driver: completion for cid " + std::to_string(c.cid()) + " on SQ " +
                  std::to_string(c.sq_id()) + ", expected cid " + std::to_string(cid));
    }
    return c;
  }

  static void expect_ok(const nvme::completion& c, const std::string& what) {
    if (!c.status().ok()) {
      throw nvme_error("raw_nvme_driver: " + what + " failed: " +
                           nvme::status_name(c.status().sct(), c.status().sc()),
                       {0, c.sq_id(), c.cid()}, std::uint8_t(c.status().sct()), c.status().sc());
    }
  }

 private:
  host::bar_view bar_;
  memory_resource& dma_;
  nvme::cap_register cap_;
  std::size_t page_bytes_ = 4096;
  queue_pair admin_;
};

}  // namespace bam::test
