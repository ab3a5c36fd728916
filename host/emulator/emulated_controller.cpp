// SPDX-License-Identifier: Apache-2.0
// The emulated controller's register file, CC/CSTS state machine and threads.
#include <bam/host/emulator/emulated_controller.hpp>

#include "host/emulator/emulated_handlers.hpp"
#include "host/idle_backoff.hpp"
#include "host/emulator/queue_engine.hpp"

#include <bam/error.hpp>
#include <bam/nvme/registers.hpp>

#include <sys/prctl.h>

#include <algorithm>
#include <string>
#include <thread>

namespace bam::host {

namespace detail {

namespace {
/// Lets a thread's short sleeps last about what they ask for (the default slack is 50 µs).
void reduce_timer_slack() noexcept { ::prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL); }

/// Memory page sizes the controller accepts: 2^(12 + MPSMIN) .. 2^(12 + MPSMAX).
constexpr std::uint32_t mps_max = 4;
}  // namespace

controller_core::controller_core(const emulated_controller_options& opts, bar_view bar_,
                                 emulated_iommu& iommu_,
                                 std::vector<std::shared_ptr<namespace_store>> namespaces_)
    : options(opts), bar(bar_), iommu(iommu_), namespaces(std::move(namespaces_)),
      faults(opts.faults ? opts.faults : std::make_shared<fault_plan>()),
      timing(opts.timing ? std::make_unique<timing_model>(*opts.timing) : nullptr),
      max_transfer_bytes(std::uint32_t(emulated_iommu::page_bytes) << opts.mdts),
      sqs(std::make_unique<sq_slot[]>(opts.max_io_queues + 1u)),
      cqs(std::make_unique<cq_slot[]>(opts.max_io_queues + 1u)) {}

std::uint16_t controller_core::check_queue_memory(std::uint64_t base, std::uint32_t entries,
                                                  std::uint32_t entry_bytes,
                                                  std::uint32_t page_bytes) const noexcept {
  if ((base & (page_bytes - 1)) != 0) return generic_error(nvme::generic_status::invalid_prp_offset);
  const std::uint64_t bytes = std::uint64_t{entries} * entry_bytes;
  for (std::uint64_t off = 0; off < bytes; off += emulated_iommu::page_bytes) {
    const std::size_t len = std::min<std::uint64_t>(emulated_iommu::page_bytes, bytes - off);
    if (iommu.translate(base + off, len) == nullptr) {
      return generic_error(nvme::generic_status::data_transfer_error);
    }
  }
  return 0;
}

void controller_core::set_fatal(const char* why) noexcept {
  const char* none = nullptr;
  fatal_reason.compare_exchange_strong(none, why, std::memory_order_relaxed);
  update_csts([](nvme::csts_register& csts) { csts.set_cfs(true); });
}

/**
 * @brief One I/O thread: serves the SQs whose CQ maps to it, rescans the queue tables when
 *        the admin thread announces a change, and sleeps on the generation counter while it
 *        has no queue at all.
 */
class io_worker {
 public:
  io_worker(controller_core& core, unsigned index)
      : core_(core), index_(index), handler_(core), engine_(core, handler_, command_set::io),
        thread_([this] { run(); }) {}
  ~io_worker() { thread_.join(); }
  io_worker(const io_worker&) = delete;
  io_worker& operator=(const io_worker&) = delete;

  [[nodiscard]] io_stats totals() const noexcept { return engine_.totals(); }

 private:
  void run() {
    reduce_timer_slack();
    idle_backoff idle(core_.options.idle_spin_ns, core_.options.idle_sleep_ns, core_.options.idle_sleep_max_ns);
    std::uint64_t seen = ~std::uint64_t{0};
    while (!core_.stopping.load(std::memory_order_acquire)) {
      // Acquire: pairs with announce(); the slot states read by refresh() are at least as new.
      const std::uint64_t generation = core_.generation.load(std::memory_order_acquire);
      if (generation != seen) {
        seen = generation;
        refresh();
        answer_abort();
      }
      if (engine_.idle()) {
        core_.generation.wait(generation, std::memory_order_acquire);
      } else if (engine_.poll()) {
        idle.reset();
      } else {
        idle.pause();
      }
    }
  }

  /// Takes on this worker's active SQs and releases its deleted SQs and CQs.
  void refresh() {
    std::vector<sq_slot*> mine;
    std::vector<slot_status*> released;
    for (std::uint32_t qid = 1; qid <= core_.options.max_io_queues; ++qid) {
      sq_slot& sq = core_.sqs[qid];
      // Acquire: the configuration written before `active` was released is visible. Slots
      // of other workers are not read beyond their status word.
      const auto s = sq.status.load(std::memory_order_acquire);
      if (s.state == slot_state::active && s.worker == index_) mine.push_back(&sq);
      if (s.state == slot_state::deleting && s.worker == index_) released.push_back(&sq.status);
      const auto c = core_.cqs[qid].status.load(std::memory_order_acquire);
      if (c.state == slot_state::deleting && c.worker == index_) {
        released.push_back(&core_.cqs[qid].status);
      }
    }
    engine_.adopt(std::move(mine));
    // Release: the admin thread may reuse the slot once it sees `free`; this thread no longer
    // touches it.
    for (auto* status : released) status->store({}, std::memory_order_release);
  }

  /// Answers a posted Abort of an SQ this worker serves (see abort_request).
  void answer_abort() {
    abort_request& req = core_.abort;
    std::uint64_t posted = req.posted.load(std::memory_order_acquire);
    if (posted == 0) return;
    sq_slot& sq = core_.sqs[abort_request::sqid_of(posted)];
    const auto s = sq.status.load(std::memory_order_relaxed);
    if (s.state != slot_state::active || s.worker != index_) return;
    if (!req.posted.compare_exchange_strong(posted, 0, std::memory_order_acquire, std::memory_order_relaxed)) return;
    const bool aborted = engine_.abort(sq, abort_request::cid_of(posted));
    req.answer.store(aborted ? abort_request::aborted : abort_request::not_aborted, std::memory_order_release);
  }

  controller_core& core_;
  unsigned index_;
  io_handler handler_;
  queue_engine engine_;
  std::thread thread_;  ///< last: starts once everything it uses is built
};

/**
 * @brief The admin thread: follows CC (enable, reset, shutdown), keeps CSTS, and serves the
 *        admin queue pair.
 */
class admin_thread {
 public:
  explicit admin_thread(controller_core& core)
      : core_(core), handler_(core), engine_(core, handler_, command_set::admin),
        thread_([this] { run(); }) {}
  ~admin_thread() { thread_.join(); }
  admin_thread(const admin_thread&) = delete;
  admin_thread& operator=(const admin_thread&) = delete;

  [[nodiscard]] io_stats totals() const noexcept { return engine_.totals(); }

 private:
  void run() {
    reduce_timer_slack();
    idle_backoff idle(core_.options.idle_spin_ns, core_.options.idle_sleep_ns, core_.options.idle_sleep_max_ns);
    while (!core_.stopping.load(std::memory_order_acquire)) {
      // Acquire: AQA/ASQ/ACQ, written before CC, are visible once the new CC is.
      const nvme::cc_register cc{core_.bar.read32(nvme::reg::cc)};
      bool progress = false;
      if (cc.en() != enabled_) {
        cc.en() ? enable(cc) : disable();
        progress = true;
      } else if (enabled_) {
        handler_.set_cc(cc);
        if (cc.shn() != nvme::shutdown_notification::none && !shut_down_) {
          shut_down();
          progress = true;
        }
        progress |= engine_.poll();
      }
      if (progress) {
        idle.reset();
      } else {
        idle.pause();
      }
    }
  }

  /// CC.EN 0 → 1: validate the admin queue configuration, then set CSTS.RDY (or CFS).
  void enable(nvme::cc_register cc) {
    enabled_ = true;
    shut_down_ = false;
    const nvme::aqa_register aqa{core_.bar.read32(nvme::reg::aqa)};
    const std::uint64_t asq = core_.bar.read64(nvme::reg::asq);
    const std::uint64_t acq = core_.bar.read64(nvme::reg::acq);
    const std::uint32_t page = std::uint32_t(emulated_iommu::page_bytes) << cc.mps();
    const char* problem = nullptr;
    if (cc.css() != 0) {
      problem = "CC.CSS selects a command set other than NVM";
    } else if (cc.mps() > mps_max) {
      problem = "CC.MPS is above CAP.MPSMAX";
    } else if (aqa.asqs() == 0 || aqa.acqs() == 0) {
      problem = "AQA asks for an admin queue of fewer than 2 entries";
    } else if (core_.check_queue_memory(asq, aqa.asqs() + 1, sizeof(nvme::command), page) != 0 ||
               core_.check_queue_memory(acq, aqa.acqs() + 1, sizeof(nvme::completion), page) != 0) {
      problem = "ASQ/ACQ is not memory-page aligned or not mapped in the IOMMU";
    }
    if (problem != nullptr) {
      core_.set_fatal(problem);
      return;
    }
    cq_slot& cq = core_.cqs[0];
    cq.base = acq;
    cq.size = aqa.acqs() + 1;
    cq.head_doorbell = core_.doorbell(0, true);
    cq.tail = cq.head = 0;
    cq.phase = true;
    cq.last_invalid_head = ~0u;
    sq_slot& sq = core_.sqs[0];
    sq.base = asq;
    sq.size = aqa.asqs() + 1;
    sq.cq = &cq;
    sq.page_bytes = page;
    sq.tail_doorbell = core_.doorbell(0, false);
    sq.head = sq.in_flight = 0;
    sq.broken = false;
    sq.last_invalid_tail = ~0u;
    sq.counters.reset();
    // The admin queues are this thread's own; `active` only lets queue_stats(0) see them.
    sq.status.store({slot_state::active}, std::memory_order_release);
    handler_.set_cc(cc);
    engine_.adopt({&sq});
    core_.update_csts([](nvme::csts_register& csts) { csts.set_rdy(true); });
  }

  /// CC.EN 1 → 0: controller reset. Deletes every queue, then clears CSTS (RDY last).
  void disable() {
    engine_.adopt({});
    core_.sqs[0].status.store({}, std::memory_order_release);
    handler_.reset();
    core_.fatal_reason.store(nullptr, std::memory_order_relaxed);
    core_.update_csts([](nvme::csts_register& csts) { csts = {}; });
    enabled_ = false;
    shut_down_ = false;
  }

  /// CC.SHN set: make written data durable, then report CSTS.SHST = complete.
  void shut_down() {
    core_.update_csts([](nvme::csts_register& c) { c.set_shst(nvme::shutdown_status::occurring); });
    for (const auto& ns : core_.namespaces) {
      try {
        ns->flush();
      } catch (const error&) {
        // A namespace that cannot flush loses its volatile data, as a failing drive would.
      }
    }
    core_.update_csts([](nvme::csts_register& c) { c.set_shst(nvme::shutdown_status::complete); });
    shut_down_ = true;
  }

  controller_core& core_;
  admin_handler handler_;
  queue_engine engine_;
  bool enabled_ = false;    ///< CC.EN as last acted on
  bool shut_down_ = false;  ///< CC.SHN acted on since the last enable
  std::thread thread_;      ///< last: starts once everything it uses is built
};

}  // namespace detail

namespace {
void check_options(const emulated_controller_options& o,
                   const std::vector<std::shared_ptr<namespace_store>>& namespaces) {
  BAM_EXPECTS(o.n_workers >= 1, "emulated_controller: n_workers must be at least 1");
  BAM_EXPECTS(o.max_io_queues >= 1, "emulated_controller: max_io_queues must be at least 1");
  BAM_EXPECTS(o.max_queue_entries >= 2 && o.max_queue_entries <= 65536,
              "emulated_controller: max_queue_entries must be in 2..65536, got " +
                  std::to_string(o.max_queue_entries));
  BAM_EXPECTS(o.doorbell_stride <= 10, "emulated_controller: doorbell_stride must be at most 10");
  BAM_EXPECTS(o.mdts >= 1 && o.mdts <= 16, "emulated_controller: mdts must be in 1..16, got " +
                                               std::to_string(o.mdts));
  BAM_EXPECTS(o.serial.size() <= 20 && o.model.size() <= 40,
              "emulated_controller: serial (20) or model (40 characters) too long");
  BAM_EXPECTS(std::none_of(namespaces.begin(), namespaces.end(), [](const auto& ns) { return !ns; }),
              "emulated_controller: null namespace store");
}
}  // namespace

emulated_controller::emulated_controller(memory_resource& bar_memory, emulated_iommu& iommu,
                                         std::vector<std::shared_ptr<namespace_store>> namespaces,
                                         options opts) {
  check_options(opts, namespaces);
  const std::size_t doorbells = 2 * (std::size_t{opts.max_io_queues} + 1) *
                                (std::size_t{4} << opts.doorbell_stride);
  const std::size_t bar_bytes = (nvme::reg::doorbells + doorbells + 4095) / 4096 * 4096;
  bar_memory_ = bar_memory.allocate(bar_bytes, memory_kind::host, 4096);
  const bar_view bar(bar_memory_.host(), bar_memory_.device(), bar_bytes);
  nvme::cap_register cap{};
  cap.set_mqes(opts.max_queue_entries - 1)
      .set_cqr(true)
      .set_to(opts.ready_timeout)
      .set_dstrd(opts.doorbell_stride)
      .set_css(1)  // NVM command set
      .set_mpsmin(0)
      .set_mpsmax(detail::mps_max);
  bar.write64(nvme::reg::cap, cap.raw);
  bar.write32(nvme::reg::vs, nvme::vs_register::make(1, 4).raw);
  core_ = std::make_unique<detail::controller_core>(opts, bar, iommu, std::move(namespaces));
  try {
    for (unsigned i = 0; i < opts.n_workers; ++i) {
      workers_.push_back(std::make_unique<detail::io_worker>(*core_, i));
    }
    admin_ = std::make_unique<detail::admin_thread>(*core_);
  } catch (...) {
    core_->stopping.store(true, std::memory_order_release);
    core_->announce();
    workers_.clear();
    throw;
  }
}

emulated_controller::~emulated_controller() {
  // Release: threads that see `stopping` leave their loops; announce() wakes sleeping workers.
  core_->stopping.store(true, std::memory_order_release);
  core_->announce();
  admin_.reset();
  workers_.clear();
}

bar_view emulated_controller::bar() const noexcept { return core_->bar; }

const emulated_controller::options& emulated_controller::config() const noexcept {
  return core_->options;
}

fault_plan& emulated_controller::faults() const noexcept { return *core_->faults; }

namespace_store& emulated_controller::store(std::uint32_t nsid) const {
  namespace_store* ns = core_->ns(nsid);
  BAM_EXPECTS(ns != nullptr, "emulated_controller::store: no namespace " + std::to_string(nsid));
  return *ns;
}

io_stats emulated_controller::stats() const noexcept {
  io_stats total = admin_->totals();
  for (const auto& w : workers_) {
    const io_stats s = w->totals();
    total.commands += s.commands;
    total.bytes += s.bytes;
    total.errors += s.errors;
    total.dropped += s.dropped;
  }
  return total;
}

std::optional<io_stats> emulated_controller::queue_stats(std::uint16_t qid) const noexcept {
  if (qid > core_->options.max_io_queues) return std::nullopt;
  const detail::sq_slot& sq = core_->sqs[qid];
  if (sq.status.state(std::memory_order_acquire) != detail::slot_state::active) return std::nullopt;
  return sq.counters.snapshot();
}

std::uint64_t emulated_controller::invalid_doorbell_writes() const noexcept {
  return core_->invalid_doorbells.load(std::memory_order_relaxed);
}

const char* emulated_controller::fatal_reason() const noexcept {
  return core_->fatal_reason.load(std::memory_order_relaxed);
}

}  // namespace bam::host
