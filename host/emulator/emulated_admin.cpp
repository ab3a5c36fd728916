// SPDX-License-Identifier: Apache-2.0
// Admin command set of the emulated controller.
#include "host/emulator/emulated_handlers.hpp"
#include "host/idle_backoff.hpp"
#include "host/emulator/prp_walker.hpp"

#include <bam/detail/atomic.hpp>
#include <bam/nvme/identify.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string_view>

namespace bam::host::detail {

namespace {
namespace gs = nvme::generic_status;
namespace ss = nvme::specific_status;
/// Generic status Command Sequence Error; completion.hpp does not name it.
constexpr std::uint8_t command_sequence_error = 0x0c;
constexpr std::uint32_t sq_entry_bytes = sizeof(nvme::command);
constexpr std::uint32_t cq_entry_bytes = sizeof(nvme::completion);
/// Identify: entries in an active namespace list.
constexpr std::size_t namespace_list_entries = 1024;

template <std::size_t N>
void space_padded(char (&field)[N], std::string_view text) {
  std::memset(field, ' ', N);
  std::memcpy(field, text.data(), std::min(N, text.size()));
}

template <class T>
std::span<const std::byte> bytes_of(const T& v) {
  return std::as_bytes(std::span<const T, 1>(&v, 1));
}

void zero_doorbell(std::uint32_t* doorbell) {
  bam::detail::system_atomic<std::uint32_t>(*doorbell).store(0, cuda::memory_order_relaxed);
}
}  // namespace

admin_handler::admin_handler(controller_core& core)
    : core_(core), granted_sqs_(core.options.max_io_queues),
      granted_cqs_(core.options.max_io_queues), segments_(prp_max_segments(4096)) {}

command_result admin_handler::execute(const nvme::command& cmd, const sq_slot& sq) {
  if (cmd.fuse() != 0 || cmd.psdt() != 0) return {generic_error(gs::invalid_field)};
  switch (cmd.opcode()) {
    case std::uint8_t(nvme::admin_opcode::identify): return identify(cmd, sq);
    case std::uint8_t(nvme::admin_opcode::create_io_cq): return create_cq(cmd, sq);
    case std::uint8_t(nvme::admin_opcode::create_io_sq): return create_sq(cmd, sq);
    case std::uint8_t(nvme::admin_opcode::delete_io_sq): return delete_sq(cmd);
    case std::uint8_t(nvme::admin_opcode::delete_io_cq): return delete_cq(cmd);
    case std::uint8_t(nvme::admin_opcode::set_features): return set_features(cmd);
    case std::uint8_t(nvme::admin_opcode::get_features): return get_features(cmd);
    case std::uint8_t(nvme::admin_opcode::abort): return abort(cmd);
    default: return {generic_error(gs::invalid_opcode)};
  }
}

command_result admin_handler::transfer_to_host(const nvme::command& cmd, const sq_slot& sq,
                                               std::span<const std::byte> data) {
  const prp_result walk = walk_prps<std::byte>(core_.iommu, cmd.prp1, cmd.prp2, data.size(),
                                               sq.page_bytes, segments_);
  if (walk.sc != gs::success) return {generic_error(walk.sc)};
  for (std::size_t i = 0, off = 0; i < walk.n_segments; off += segments_[i].size(), ++i) {
    std::memcpy(segments_[i].data(), data.data() + off, segments_[i].size());
  }
  return {0, 0, 0, data.size()};
}

command_result admin_handler::identify(const nvme::command& cmd, const sq_slot& sq) {
  switch (cmd.cns()) {
    case std::uint8_t(nvme::identify_cns::namespace_data): {
      const namespace_store* ns = core_.ns(cmd.nsid);
      if (ns == nullptr) return {generic_error(gs::invalid_namespace)};
      nvme::identify_namespace id{};
      id.nsze = id.ncap = id.nuse = ns->n_blocks();
      id.lbaf[0] = nvme::lba_format::make(std::uint32_t(std::countr_zero(ns->block_size())));
      return transfer_to_host(cmd, sq, bytes_of(id));
    }
    case std::uint8_t(nvme::identify_cns::controller): {
      nvme::identify_controller id{};
      space_padded(id.sn, core_.options.serial);
      space_padded(id.mn, core_.options.model);
      space_padded(id.fr, "bam-0.1");
      id.mdts = core_.options.mdts;
      id.ver = nvme::vs_register::make(1, 4).raw;
      id.sqes = 0x66;  // required and maximum: 64-byte entries
      id.cqes = 0x44;  // 16-byte entries
      id.nn = std::uint32_t(core_.namespaces.size());
      id.vwc = 1;  // a volatile write cache: Flush has work to do (file_store)
      return transfer_to_host(cmd, sq, bytes_of(id));
    }
    case std::uint8_t(nvme::identify_cns::active_namespaces): {
      if (cmd.nsid >= 0xfffffffeu) return {generic_error(gs::invalid_namespace)};
      std::array<std::uint32_t, namespace_list_entries> list{};
      std::size_t n = 0;
      for (std::uint64_t nsid = std::uint64_t{cmd.nsid} + 1;
           nsid <= core_.namespaces.size() && n < list.size(); ++nsid) {
        list[n++] = std::uint32_t(nsid);
      }
      return transfer_to_host(cmd, sq, bytes_of(list));
    }
    default: return {generic_error(gs::invalid_field)};
  }
}

command_result admin_handler::create_cq(const nvme::command& cmd, const sq_slot& sq) {
  const std::uint16_t qid = cmd.qid();
  if (qid == 0 || qid > granted_cqs_ ||
      core_.cqs[qid].status.state(std::memory_order_acquire) != slot_state::free) {
    return {specific_error(ss::invalid_queue_identifier)};
  }
  if (cmd.qsize() < 2 || cmd.qsize() > core_.options.max_queue_entries) {
    return {specific_error(ss::invalid_queue_size)};
  }
  if (!cmd.physically_contiguous() || cc_.iocqes() != 4) return {generic_error(gs::invalid_field)};
  if (const auto status = core_.check_queue_memory(cmd.prp1, cmd.qsize(), cq_entry_bytes, sq.page_bytes)) {
    return {status};
  }
  cq_slot& cq = core_.cqs[qid];
  cq.base = cmd.prp1;
  cq.size = cmd.qsize();
  cq.qid = qid;
  cq.head_doorbell = core_.doorbell(qid, true);
  cq.attached_sqs = 0;
  cq.tail = cq.head = 0;
  cq.phase = true;
  cq.last_invalid_head = ~0u;
  zero_doorbell(cq.head_doorbell);
  // Release: the serving worker that sees `active` sees the configuration above.
  cq.status.store({slot_state::active, (qid - 1u) % core_.options.n_workers},
                  std::memory_order_release);
  ++live_io_queues_;
  core_.announce();
  return {};
}

command_result admin_handler::create_sq(const nvme::command& cmd, const sq_slot& admin_sq) {
  const std::uint16_t qid = cmd.qid();
  if (qid == 0 || qid > granted_sqs_ ||
      core_.sqs[qid].status.state(std::memory_order_acquire) != slot_state::free) {
    return {specific_error(ss::invalid_queue_identifier)};
  }
  if (cmd.qsize() < 2 || cmd.qsize() > core_.options.max_queue_entries) {
    return {specific_error(ss::invalid_queue_size)};
  }
  if (!cmd.physically_contiguous() || cc_.iosqes() != 6) return {generic_error(gs::invalid_field)};
  const std::uint16_t cqid = cmd.cqid();
  if (cqid == 0 || cqid > core_.options.max_io_queues ||
      core_.cqs[cqid].status.state(std::memory_order_acquire) != slot_state::active) {
    return {specific_error(ss::completion_queue_invalid)};
  }
  if (const auto status =
          core_.check_queue_memory(cmd.prp1, cmd.qsize(), sq_entry_bytes, admin_sq.page_bytes)) {
    return {status};
  }
  sq_slot& sq = core_.sqs[qid];
  sq.base = cmd.prp1;
  sq.size = cmd.qsize();
  sq.qid = qid;
  sq.cq = &core_.cqs[cqid];
  sq.page_bytes = admin_sq.page_bytes;
  sq.tail_doorbell = core_.doorbell(qid, false);
  sq.head = 0;
  sq.in_flight = 0;
  sq.broken = false;
  sq.last_invalid_tail = ~0u;
  sq.counters.reset();
  zero_doorbell(sq.tail_doorbell);
  ++sq.cq->attached_sqs;
  // The SQ is served by its CQ's worker, so every CQ has one writer.
  sq.status.store({slot_state::active, sq.cq->status.load(std::memory_order_relaxed).worker},
                  std::memory_order_release);
  ++live_io_queues_;
  core_.announce();
  return {};
}

void admin_handler::retire(std::span<slot_status* const> slots) {
  // Only this thread moves a slot out of `active`, so load-then-store is not a lost update.
  for (slot_status* status : slots) {
    status->store({slot_state::deleting, status->load(std::memory_order_relaxed).worker},
                  std::memory_order_release);
  }
  core_.announce();
  idle_backoff wait(core_.options.idle_spin_ns, core_.options.idle_sleep_ns, core_.options.idle_sleep_max_ns);
  for (slot_status* status : slots) {
    // Acquire: pairs with the worker's release once it holds no reference to the queue.
    while (status->state(std::memory_order_acquire) != slot_state::free &&
           !core_.stopping.load(std::memory_order_relaxed)) {
      wait.pause();
    }
  }
}

command_result admin_handler::delete_sq(const nvme::command& cmd) {
  const std::uint16_t qid = cmd.qid();
  if (qid == 0 || qid > core_.options.max_io_queues ||
      core_.sqs[qid].status.state(std::memory_order_acquire) != slot_state::active) {
    return {specific_error(ss::invalid_queue_identifier)};
  }
  slot_status* const status = &core_.sqs[qid].status;
  retire({&status, 1});
  --core_.sqs[qid].cq->attached_sqs;
  --live_io_queues_;
  return {};
}

command_result admin_handler::delete_cq(const nvme::command& cmd) {
  const std::uint16_t qid = cmd.qid();
  if (qid == 0 || qid > core_.options.max_io_queues ||
      core_.cqs[qid].status.state(std::memory_order_acquire) != slot_state::active) {
    return {specific_error(ss::invalid_queue_identifier)};
  }
  if (core_.cqs[qid].attached_sqs != 0) return {specific_error(ss::invalid_queue_deletion)};
  slot_status* const status = &core_.cqs[qid].status;
  retire({&status, 1});
  --live_io_queues_;
  return {};
}

command_result admin_handler::set_features(const nvme::command& cmd) {
  const bool save = (cmd.cdw10 >> 31) != 0;
  if (save || cmd.fid() != std::uint8_t(nvme::feature_id::number_of_queues)) {
    return {generic_error(gs::invalid_field)};
  }
  const std::uint32_t nsqr = cmd.cdw11 & 0xffffu;
  const std::uint32_t ncqr = cmd.cdw11 >> 16;
  if (nsqr == 0xffffu || ncqr == 0xffffu) return {generic_error(gs::invalid_field)};
  if (live_io_queues_ != 0) return {generic_error(command_sequence_error)};
  granted_sqs_ = std::min<std::uint32_t>(nsqr + 1, core_.options.max_io_queues);
  granted_cqs_ = std::min<std::uint32_t>(ncqr + 1, core_.options.max_io_queues);
  return get_features(cmd);
}

command_result admin_handler::get_features(const nvme::command& cmd) const {
  if (cmd.fid() != std::uint8_t(nvme::feature_id::number_of_queues)) {
    return {generic_error(gs::invalid_field)};
  }
  return {0, (granted_sqs_ - 1) | ((granted_cqs_ - 1) << 16)};
}

command_result admin_handler::abort(const nvme::command& cmd) {
  const std::uint16_t sqid = cmd.qid();
  if (sqid > core_.options.max_io_queues) return {generic_error(gs::invalid_field)};
  // Admin commands complete before the next one executes: none is left to abort.
  if (sqid == 0) return {0, 1};
  if (core_.sqs[sqid].status.state(std::memory_order_relaxed) != slot_state::active) {
    return {generic_error(gs::invalid_field)};
  }
  abort_request& req = core_.abort;
  req.answer.store(0, std::memory_order_relaxed);
  req.posted.store(abort_request::encode(sqid, cmd.abort_cid()), std::memory_order_release);
  core_.announce();
  idle_backoff wait(core_.options.idle_spin_ns, core_.options.idle_sleep_ns, core_.options.idle_sleep_max_ns);
  std::uint32_t answer = 0;
  // Acquire: pairs with the worker's release store of the answer.
  while ((answer = req.answer.load(std::memory_order_acquire)) == 0) {
    if (core_.stopping.load(std::memory_order_relaxed)) return {0, 1};
    wait.pause();
  }
  // dw0 bit 0: 0 = aborted, 1 = not aborted.
  return {0, answer == abort_request::aborted ? 0u : 1u};
}

void admin_handler::reset() {
  const std::uint32_t n = core_.options.max_io_queues;
  const auto active_in = [n](const auto& table) {
    std::vector<slot_status*> live;
    for (std::uint32_t qid = 1; qid <= n; ++qid) {
      if (table[qid].status.state(std::memory_order_relaxed) == slot_state::active) {
        live.push_back(&table[qid].status);
      }
    }
    return live;
  };
  // Submission queues first: a completion queue is retired only once nothing posts to it.
  retire(active_in(core_.sqs));
  retire(active_in(core_.cqs));
  for (std::uint32_t qid = 0; qid <= n; ++qid) {
    zero_doorbell(core_.doorbell(std::uint16_t(qid), false));
    zero_doorbell(core_.doorbell(std::uint16_t(qid), true));
  }
  live_io_queues_ = 0;
  granted_sqs_ = granted_cqs_ = n;
  cc_ = {};
}

}  // namespace bam::host::detail
