// SPDX-License-Identifier: Apache-2.0
#include <bam/host/drivers/block_io.hpp>

#include "host/io_error.hpp"

#include "queues/prp.hpp"

#include <bam/detail/clock.hpp>
#include <bam/error.hpp>
#include <bam/nvme/completion.hpp>

#include <bit>
#include <string>

namespace bam::host {

namespace {

/// Unlimited MDTS is capped here: a bound for the PRP list memory.
constexpr std::size_t default_max_transfer = std::size_t{2} << 20;

const char* op_name(nvme::io_opcode op) {
  switch (op) {
    case nvme::io_opcode::read:
      return "read";
    case nvme::io_opcode::write:
      return "write";
    case nvme::io_opcode::flush:
      return "flush";
  }
  return "I/O command";
}

}  // namespace

block_io::block_io(controller& ctrl, memory_resource& memory, std::size_t queue, block_io_options options)
    : ctrl_(ctrl), options_(options) {
  BAM_EXPECTS(queue < ctrl_.io_queues().size(), "block_io: controller " + std::to_string(ctrl_.index()) + " has " +
                                                    std::to_string(ctrl_.io_queues().size()) +
                                                    " I/O queue pairs, not " + std::to_string(queue + 1));
  queue_ = ctrl_.io_queues()[queue];
  const std::size_t mdts = ctrl_.max_transfer_bytes();
  max_bytes_ =
      options_.max_transfer_bytes != 0 ? options_.max_transfer_bytes : (mdts != 0 ? mdts : default_max_transfer);
  BAM_EXPECTS(mdts == 0 || max_bytes_ <= mdts, "block_io: max_transfer_bytes " + std::to_string(max_bytes_) +
                                                   " exceeds the controller's MDTS (" + std::to_string(mdts) +
                                                   " bytes)");
  pending_.resize(queue_.depth());

  // Worst case: the data starts 4 bytes before a page boundary.
  const std::size_t page = ctrl_.page_bytes();
  const std::size_t list_bytes = queues::prp_list_bytes(page - 4, max_bytes_, page);
  if (list_bytes == 0) return;
  list_stride_ = std::bit_ceil(list_bytes);  // a power of two: no list straddles a hugepage
  lists_ = memory.allocate(list_stride_ * queue_.depth(), memory_kind::host, list_stride_ < 4096 ? 4096 : list_stride_);
  for (std::size_t cid = 0; cid < queue_.depth(); ++cid)
    BAM_EXPECTS(lists_.bus_reachable() && lists_.bus_contiguous_from(cid * list_stride_) >= list_bytes,
                "block_io: PRP lists for transfers of " + std::to_string(max_bytes_) + " bytes need " +
                    std::to_string(list_bytes) +
                    " bus-contiguous bytes per command; the memory resource gave "
                    "scattered pages (use hugepages or a smaller max_transfer_bytes)");
}

std::string block_io::describe(const pending& p) const {
  std::string s =
      "controller " + std::to_string(ctrl_.index()) + ", queue " + std::to_string(queue_.qid()) + ": " + op_name(p.op);
  if (p.op != nvme::io_opcode::flush)
    s += " of " + std::to_string(p.n_blocks) + " blocks at LBA " + std::to_string(p.lba);
  return s + " on namespace " + std::to_string(p.nsid);
}

std::uint64_t block_io::submit(nvme::io_opcode op, std::uint32_t nsid, std::uint64_t lba, std::uint32_t n_blocks,
                               const dma_buffer& buffer, std::size_t offset) {
  BAM_EXPECTS(op == nvme::io_opcode::read || op == nvme::io_opcode::write,
              "block_io::submit: only read and write carry data");
  const pending what{op, nsid, lba, n_blocks};
  const std::size_t block = ctrl_.namespace_by_id(nsid).block_size;
  BAM_EXPECTS(n_blocks >= 1 && n_blocks <= 65536, describe(what) + ": 1 to 65536 blocks per command");
  const std::size_t bytes = std::size_t{n_blocks} * block;
  BAM_EXPECTS(bytes <= max_bytes_,
              describe(what) + ": " + std::to_string(bytes) +
                  " bytes exceed the largest transfer of one command (MDTS: " + std::to_string(max_bytes_) + " bytes)");
  BAM_EXPECTS(buffer.bus_reachable() && buffer.host() != nullptr,
              describe(what) + ": the buffer is not host memory the controller can reach");
  BAM_EXPECTS(offset % 4 == 0 && offset + bytes <= buffer.size(),
              describe(what) + ": " + std::to_string(bytes) + " bytes from offset " + std::to_string(offset) +
                  " do not fit a dword-aligned range of the " + std::to_string(buffer.size()) + "-byte buffer");
  return submit_command(nvme::make_io(op, nsid, lba, n_blocks, 0, 0), what, bytes, &buffer, offset);
}

void block_io::flush(std::uint32_t nsid) {
  wait(submit_command(nvme::make_flush(nsid), pending{nvme::io_opcode::flush, nsid, 0, 0}, 0, nullptr, 0));
}

std::uint64_t block_io::submit_command(nvme::command cmd, const pending& what, std::size_t bytes,
                                       const dma_buffer* buffer, std::size_t offset) {
  const std::uint64_t deadline =
      detail::now_ns() + std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(options_.timeout).count());
  if (queue_.failed())
    throw error(describe(what) + ": the queue pair failed earlier (a timeout or a controller fault)");
  const std::uint64_t t = queue_.reserve();
  const auto timed_out = [&](const char* step) {
    return timeout_error(
        describe(what) + ": " + step + " within " + std::to_string(options_.timeout.count()) + " ms",
        nvme_context{ctrl_.index(), queue_.qid(), queue_.cid_of(t), cmd.opcode(), what.nsid, what.lba, what.n_blocks});
  };
  if (queue_.wait_for_slot(t, deadline) != bam::status::ok) throw timed_out("no submission queue slot freed up");
  const std::uint16_t cid = queue_.cid_of(t);
  if (buffer != nullptr) {
    auto* list = reinterpret_cast<std::uint64_t*>(lists_.host() + cid * list_stride_);
    const std::uint64_t list_bus = list_stride_ != 0 ? lists_.bus_at(cid * list_stride_) : 0;
    const queues::prp_pair prp = queues::build_prps([&](std::size_t o) { return buffer->bus_at(offset + o); }, bytes,
                                                    ctrl_.page_bytes(), list, list_bus);
    cmd.prp1 = prp.prp1;
    cmd.prp2 = prp.prp2;
  }
  pending_[cid] = what;
  queue_.write(t, cmd);
  if (queue_.publish(t, deadline) != bam::status::ok) throw timed_out("the command was not published (doorbell)");
  return t;
}

void block_io::wait(std::uint64_t ticket) {
  const std::uint64_t deadline =
      detail::now_ns() + std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(options_.timeout).count());
  const std::uint16_t cid = queue_.cid_of(ticket);
  const pending what = pending_[cid];
  const nvme_context ctx{ctrl_.index(), queue_.qid(), cid, std::uint8_t(what.op), what.nsid, what.lba, what.n_blocks};
  const queues::completion_result r = queue_.await(ticket, deadline);
  // A completion, with or without an error status, frees its slot; a timeout or a failed pair does not.
  if (r.status == bam::status::ok || r.status == bam::status::io_error) queue_.release(ticket);
  if (r.status == bam::status::ok) return;
  throw_failure(r.status, r.nvme_status, ctx, describe(what) + " (command id " + std::to_string(cid) + ")",
                " did not complete within " + std::to_string(options_.timeout.count()) +
                    " ms; the queue pair is now failed");
}

}  // namespace bam::host
