// SPDX-License-Identifier: Apache-2.0
#include <bam/host/controller.hpp>

#include "host/controller_ring_pair.hpp"
#include "host/io_error.hpp"

#include <bam/detail/clock.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/nvme/registers.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <thread>

namespace bam::host {

namespace {

constexpr std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

}  // namespace

controller::controller(bar_view bar, memory_resource& memory, controller_options options)
    : bar_(bar), memory_(memory), options_(options) {
  BAM_EXPECTS(bar_.size() >= nvme::reg::doorbells + 8, "controller: BAR0 mapping of " +
                                                           std::to_string(bar_.size()) + " bytes is too small");
  BAM_EXPECTS(options_.admin_depth >= 2 && options_.admin_depth <= 4096,
              "controller: admin_depth must be in 2..4096, got " + std::to_string(options_.admin_depth));
  BAM_EXPECTS(options_.queue_depth >= 2 && options_.queue_depth <= 65536,
              "controller: queue_depth must be in 2..65536, got " + std::to_string(options_.queue_depth));
  BAM_EXPECTS(options_.io_queue_pairs >= 1 && options_.io_queue_pairs <= 65535,
              "controller: io_queue_pairs must be in 1..65535, got " + std::to_string(options_.io_queue_pairs));

  cap_.raw = bar_.read64(nvme::reg::cap);
  if (cap_.raw == ~std::uint64_t{0})
    throw error("controller " + std::to_string(options_.index) + ": CAP reads all ones; the device is gone or BAR0 is not mapped");
  BAM_EXPECTS((cap_.css() & 1) != 0, "controller: the NVM command set is not supported (CAP.CSS)");
  page_bytes_ = std::size_t{4096} << cap_.mpsmin();
  ready_timeout_ = std::max(std::chrono::milliseconds(500) * cap_.to(), std::chrono::milliseconds(500));
  identify_buffer_ = memory_.allocate(4096, memory_kind::host, 4096);

  disable();
  admin_ = make_rings(0, options_.admin_depth, memory_kind::host, io_driver::cpu);
  program_admin_queue();
  enable();
  identify();
  create_io_queues();
}

controller::~controller() {
  try {
    shutdown();
  } catch (const std::exception&) {
    // A destructor cannot report: callers who need the outcome call shutdown() themselves.
  }
}

void controller::shutdown() {
  std::lock_guard lock(admin_mutex_);
  if (shut_down_) return;
  shut_down_ = true;
  const std::exception_ptr delete_failure = delete_io_queues();
  nvme::cc_register cc{bar_.read32(nvme::reg::cc)};
  cc.set_shn(nvme::shutdown_notification::normal);
  bar_.write32(nvme::reg::cc, cc.raw);
  const auto deadline = std::chrono::steady_clock::now() + ready_timeout_;
  while (nvme::csts_register{bar_.read32(nvme::reg::csts)}.shst() != nvme::shutdown_status::complete) {
    if (std::chrono::steady_clock::now() > deadline)
      throw timeout_error("controller " + std::to_string(options_.index) +
                              ": shutdown did not complete (CSTS.SHST) within CAP.TO",
                          nvme_context{options_.index});
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  if (delete_failure) std::rethrow_exception(delete_failure);
}

queues::queue_health& controller::io_health(std::size_t i) const {
  BAM_EXPECTS(i < io_.size(), "controller " + std::to_string(options_.index) + ": no I/O queue pair " + std::to_string(i));
  return *reinterpret_cast<queues::queue_health*>(io_[i]->health.host());
}

const namespace_info& controller::namespace_by_id(std::uint32_t nsid) const {
  for (const auto& ns : namespaces_)
    if (ns.nsid == nsid) return ns;
  throw invalid_argument("controller " + std::to_string(options_.index) + " has no active namespace " +
                         std::to_string(nsid));
}

std::uint32_t controller::admin(const nvme::command& cmd, std::string_view what) {
  std::lock_guard lock(admin_mutex_);
  return admin_locked(cmd, what);
}

std::uint32_t controller::admin_locked(const nvme::command& cmd, std::string_view what) {
  const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.admin_timeout);
  const std::uint64_t deadline = detail::now_ns() + std::uint64_t(timeout.count());
  std::uint64_t ticket = 0;
  queues::completion_result r{admin_->ref.submit(cmd, ticket, deadline), {}, 0};
  if (r.status == bam::status::ok) r = admin_->ref.wait(ticket, deadline);
  return throw_if_failed(r, context_of(cmd, options_.index, 0, admin_->ref.cid_of(ticket)), what);
}

void controller::disable() {
  nvme::cc_register cc{bar_.read32(nvme::reg::cc)};
  if (cc.en()) {
    cc.set_en(false);
    bar_.write32(nvme::reg::cc, cc.raw);
  }
  wait_ready(false, "reset (CC.EN = 0)");
}

void controller::program_admin_queue() {
  bar_.write32(nvme::reg::aqa, nvme::aqa_register::make(options_.admin_depth, options_.admin_depth).raw);
  bar_.write64(nvme::reg::asq, admin_->sq.bus_at(0));
  bar_.write64(nvme::reg::acq, admin_->cq.bus_at(0));
}

void controller::enable() {
  BAM_EXPECTS(cap_.mpsmin() <= cap_.mpsmax(), "controller: CAP.MPSMIN exceeds CAP.MPSMAX");
  nvme::cc_register cc{};
  cc.set_css(0).set_mps(cap_.mpsmin()).set_ams(0).set_iosqes(6).set_iocqes(4).set_en(true);
  bar_.write32(nvme::reg::cc, cc.raw);
  wait_ready(true, "enable (CC.EN = 1)");
}

void controller::wait_ready(bool ready, std::string_view during) {
  const auto deadline = std::chrono::steady_clock::now() + ready_timeout_;
  for (;;) {
    const nvme::csts_register csts{bar_.read32(nvme::reg::csts)};
    if (csts.raw == ~std::uint32_t{0})
      throw error("controller " + std::to_string(options_.index) + ": CSTS reads all ones during " + std::string(during));
    if (ready && csts.cfs())
      throw error("controller " + std::to_string(options_.index) + ": controller fatal status (CSTS.CFS) during " +
                  std::string(during));
    if (csts.rdy() == ready) return;
    if (std::chrono::steady_clock::now() > deadline)
      throw timeout_error("controller " + std::to_string(options_.index) + ": CSTS.RDY did not become " +
                              (ready ? "1" : "0") + " within CAP.TO (" + std::to_string(ready_timeout_.count()) +
                              " ms) during " + std::string(during),
                          nvme_context{options_.index});
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void controller::identify() {
  auto* data = identify_buffer_.host();
  admin(nvme::make_identify(nvme::identify_cns::controller, 0, identify_buffer_.bus_at(0)), "identify controller");
  identity_ = std::make_unique<nvme::identify_controller>();
  std::memcpy(identity_.get(), data, sizeof(nvme::identify_controller));
  if (identity_->mdts != 0) max_transfer_bytes_ = (std::size_t{1} << identity_->mdts) * page_bytes_;

  std::vector<std::uint32_t> ids;
  std::memset(data, 0, 4096);
  admin(nvme::make_identify(nvme::identify_cns::active_namespaces, 0, identify_buffer_.bus_at(0)),
        "identify active namespace list");
  for (std::size_t i = 0; i < 1024; ++i) {
    std::uint32_t id = 0;
    std::memcpy(&id, data + 4 * i, 4);
    if (id == 0) break;
    ids.push_back(id);
  }
  for (const std::uint32_t nsid : ids) {
    admin(nvme::make_identify(nvme::identify_cns::namespace_data, nsid, identify_buffer_.bus_at(0)),
          "identify namespace " + std::to_string(nsid));
    nvme::identify_namespace ns{};
    std::memcpy(&ns, data, sizeof ns);
    if (ns.nsze == 0) continue;  // allocated but inactive
    namespaces_.push_back(namespace_info{nsid, ns.block_size(), ns.nsze});
  }
}

std::unique_ptr<controller::ring_pair> controller::make_rings(std::uint16_t qid, std::uint32_t depth,
                                                              memory_kind ring_memory, io_driver driver) {
  auto rings = std::make_unique<ring_pair>();
  const std::size_t sq_bytes = align_up(depth * sizeof(nvme::command), page_bytes_);
  const std::size_t cq_bytes = align_up(depth * sizeof(nvme::completion), page_bytes_);
  rings->sq = memory_.allocate(sq_bytes, ring_memory, 4096);
  rings->cq = memory_.allocate(cq_bytes, ring_memory, 4096);
  for (const dma_buffer* b : {&rings->sq, &rings->cq})
    BAM_EXPECTS(b->bus_reachable() && b->bus_contiguous_from(0) >= b->size(),
                "controller: queue memory must be reachable by the controller and physically contiguous "
                "(CAP.CQR); the memory resource gave " + std::string(b->bus_reachable() ? "scattered" : "unreachable") +
                " memory");

  // Control block: queue_control, then `depth` ready words, then `depth` mailboxes.
  const std::size_t ready_at = align_up(sizeof(queues::queue_control), cache_line_bytes);
  const std::size_t mail_at = align_up(ready_at + depth * sizeof(std::uint64_t), cache_line_bytes);
  const std::size_t control_bytes = mail_at + depth * sizeof(queues::mailbox);
  const bool on_gpu = driver == io_driver::gpu && memory_.has_device_memory();
  rings->control = memory_.allocate(control_bytes, on_gpu ? memory_kind::device : memory_kind::host, 4096);

  auto side = [&](const dma_buffer& b) { return driver == io_driver::gpu ? b.device() : b.host(); };
  std::byte* sq = side(rings->sq);
  std::byte* cq = side(rings->cq);
  std::byte* control = side(rings->control);
  std::uint32_t* sq_db = driver == io_driver::gpu ? bar_.doorbell(qid, false, cap_.dstrd()) : bar_.host_doorbell(qid, false, cap_.dstrd());
  std::uint32_t* cq_db = driver == io_driver::gpu ? bar_.doorbell(qid, true, cap_.dstrd()) : bar_.host_doorbell(qid, true, cap_.dstrd());
  BAM_EXPECTS(sq != nullptr && cq != nullptr && control != nullptr && sq_db != nullptr && cq_db != nullptr,
              std::string("controller: queue memory or doorbells are not reachable from the ") +
                  (driver == io_driver::gpu ? "GPU" : "CPU") + " that drives queue " + std::to_string(qid));

  queues::queue_pair_storage s{};
  s.sq = reinterpret_cast<nvme::command*>(sq);
  s.cq = reinterpret_cast<nvme::completion*>(cq);
  s.sq_doorbell.reg = sq_db;
  s.cq_doorbell.reg = cq_db;
  s.control = reinterpret_cast<queues::queue_control*>(control);
  s.sq_ready = reinterpret_cast<std::uint64_t*>(control + ready_at);
  s.mailboxes = reinterpret_cast<queues::mailbox*>(control + mail_at);
  s.depth = depth;
  s.qid = qid;
  if (qid != 0) {
    // The recovery record: written by the driving threads and read by the host's recovery.
    // (Zeroed memory is the initial record.)
    rings->health = memory_.allocate(sizeof(queues::queue_health), memory_kind::host, 4096);
    s.health = reinterpret_cast<queues::queue_health*>(side(rings->health));
    BAM_EXPECTS(s.health != nullptr,
                "controller: the recovery record of queue " + std::to_string(qid) + " is not reachable from the " +
                    (driver == io_driver::gpu ? "GPU" : "CPU"));
  }
  rings->ref = queues::queue_pair_ref<>(s);
  return rings;
}

void controller::create_io_queues() {
  depth_ = std::min<std::uint32_t>(options_.queue_depth, cap_.mqes() + 1);
  std::lock_guard lock(admin_mutex_);
  const std::uint32_t granted = set_number_of_queues();
  for (std::uint32_t i = 1; i <= granted; ++i) {
    io_.push_back(make_rings(std::uint16_t(i), depth_, options_.ring_memory, options_.driver));
    create_io_pair(*io_.back());
    io_refs_.push_back(io_.back()->ref);
  }
}

std::uint32_t controller::set_number_of_queues() {
  const std::uint32_t dw0 = admin_locked(
      nvme::make_set_number_of_queues(options_.io_queue_pairs, options_.io_queue_pairs), "set number of queues");
  return std::min({options_.io_queue_pairs, (dw0 & 0xffff) + 1, (dw0 >> 16) + 1});
}

void controller::create_io_pair(ring_pair& r) {
  const std::uint16_t qid = r.ref.qid();
  if (!r.cq_live) {
    admin_locked(nvme::make_create_io_cq(qid, depth_, r.cq.bus_at(0)), "create I/O CQ " + std::to_string(qid));
    r.cq_live = true;
  }
  if (!r.sq_live) {
    admin_locked(nvme::make_create_io_sq(qid, depth_, r.sq.bus_at(0), qid), "create I/O SQ " + std::to_string(qid));
    r.sq_live = true;
  }
}

std::exception_ptr controller::delete_io_queues() noexcept {
  // Every queue gets its delete commands even when one fails; the first failure is returned.
  std::exception_ptr first_failure;
  auto attempt = [&](bool& live, const nvme::command& cmd, const std::string& what) {
    if (!live) return;
    try {
      admin_locked(cmd, what);
      live = false;
    } catch (...) {
      if (!first_failure) first_failure = std::current_exception();
    }
  };
  for (auto it = io_.rbegin(); it != io_.rend(); ++it) {
    ring_pair& r = **it;
    const std::uint16_t qid = r.ref.qid();
    attempt(r.sq_live, nvme::make_delete_io_sq(qid), "delete I/O SQ " + std::to_string(qid));
    attempt(r.cq_live, nvme::make_delete_io_cq(qid), "delete I/O CQ " + std::to_string(qid));
  }
  io_refs_.clear();
  return first_failure;
}

}  // namespace bam::host
