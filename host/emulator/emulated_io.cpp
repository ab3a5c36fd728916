// SPDX-License-Identifier: Apache-2.0
// NVM command set of the emulated controller: Read, Write, Flush.
#include "host/emulator/emulated_handlers.hpp"
#include "host/emulator/prp_walker.hpp"

#include <bam/detail/clock.hpp>

#include <type_traits>

namespace bam::host::detail {

namespace {
namespace gs = nvme::generic_status;
/// Media status Write Fault (SCT 2); completion.hpp names only the read-side code.
constexpr std::uint8_t media_write_fault = 0x80;
/// NSID that addresses every namespace (Flush).
constexpr std::uint32_t broadcast_nsid = 0xffffffffu;

constexpr std::uint16_t media_error(std::uint8_t sc) {
  return nvme::status_field::make(nvme::status_type::media, sc).raw;
}
}  // namespace

io_handler::io_handler(controller_core& core)
    : core_(core), read_segments_(prp_max_segments(core.max_transfer_bytes)),
      write_segments_(prp_max_segments(core.max_transfer_bytes)) {}

command_result io_handler::execute(const nvme::command& cmd, const sq_slot& sq) {
  switch (cmd.opcode()) {
    case std::uint8_t(nvme::io_opcode::read): return transfer(cmd, sq, read_segments_);
    case std::uint8_t(nvme::io_opcode::write): return transfer(cmd, sq, write_segments_);
    case std::uint8_t(nvme::io_opcode::flush): return flush(cmd);
    default: return {generic_error(gs::invalid_opcode)};
  }
}

void io_handler::prefetch(const nvme::command& cmd) noexcept {
  const bool transfer = cmd.opcode() == std::uint8_t(nvme::io_opcode::read) ||
                        cmd.opcode() == std::uint8_t(nvme::io_opcode::write);
  namespace_store* ns = nullptr;
  if (transfer && check_transfer(cmd, ns) == 0) ns->prefetch(cmd.slba(), cmd.n_blocks());
}

std::uint16_t io_handler::check_transfer(const nvme::command& cmd,
                                         namespace_store*& ns) const noexcept {
  if (cmd.fuse() != 0 || cmd.psdt() != 0) return generic_error(gs::invalid_field);
  ns = core_.ns(cmd.nsid);
  if (ns == nullptr) return generic_error(gs::invalid_namespace);
  if (std::uint64_t{cmd.n_blocks()} * ns->block_size() > core_.max_transfer_bytes) {
    return generic_error(gs::invalid_field);
  }
  if (cmd.slba() >= ns->n_blocks() || cmd.n_blocks() > ns->n_blocks() - cmd.slba()) {
    return generic_error(gs::lba_out_of_range);
  }
  return 0;
}

template <class Byte>
command_result io_handler::transfer(const nvme::command& cmd, const sq_slot& sq,
                                    std::vector<std::span<Byte>>& segments) {
  constexpr bool is_write = std::is_const_v<Byte>;
  const std::uint64_t arrival = core_.timing ? bam::detail::now_ns() : 0;
  namespace_store* ns = nullptr;
  if (const auto status = check_transfer(cmd, ns)) return {status};
  const std::uint32_t n = cmd.n_blocks();
  const std::uint64_t bytes = std::uint64_t{n} * ns->block_size();
  const prp_result walk = walk_prps<Byte>(core_.iommu, cmd.prp1, cmd.prp2, bytes, sq.page_bytes,
                                          segments);
  if (walk.sc != gs::success) return {generic_error(walk.sc)};
  const std::span<const std::span<Byte>> data(segments.data(), walk.n_segments);
  try {
    if constexpr (is_write) {
      ns->writev(cmd.slba(), n, data);
    } else {
      ns->readv(cmd.slba(), n, data);
    }
  } catch (const namespace_full_error&) {
    return {generic_error(gs::capacity_exceeded)};
  } catch (...) {
    return {media_error(is_write ? media_write_fault : nvme::media_status::unrecovered_read_error)};
  }
  command_result r{0, 0, 0, bytes};
  if (core_.timing) {
    r.not_before_ns = core_.timing->schedule(is_write ? io_direction::write : io_direction::read,
                                             cmd.slba() * ns->block_size(), bytes, arrival);
  }
  return r;
}

command_result io_handler::flush(const nvme::command& cmd) {
  const std::uint64_t arrival = core_.timing ? bam::detail::now_ns() : 0;
  if (cmd.nsid != broadcast_nsid && core_.ns(cmd.nsid) == nullptr) {
    return {generic_error(gs::invalid_namespace)};
  }
  try {
    for (std::uint32_t nsid = 1; nsid <= core_.namespaces.size(); ++nsid) {
      if (cmd.nsid == broadcast_nsid || cmd.nsid == nsid) core_.ns(nsid)->flush();
    }
  } catch (...) {
    return {media_error(media_write_fault)};
  }
  command_result r;
  if (core_.timing) r.not_before_ns = core_.timing->schedule_flush(arrival);
  return r;
}

}  // namespace bam::host::detail
