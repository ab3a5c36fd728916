// SPDX-License-Identifier: Apache-2.0
// Data through QEMU's controller: write, read back, verify — on 512 B and 4 KiB namespaces,
// for every transfer size up to MDTS (PRP1 only, PRP2, one PRP list, chained lists), from
// page-aligned and unaligned buffers; and transfers beyond MDTS refused.
#include "tests/nvme_guest/guest_support.hpp"

#include "apps/bam-nvme/pattern.hpp"
#include "queues/prp.hpp"

#include <bam/error.hpp>
#include <bam/nvme/completion.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace bam::guest {
namespace {

using nvme_tool::fill_pattern;
using nvme_tool::find_mismatch;

/// Writes the pattern for `seed` at `lba` from `buf` at `offset`, zeroes the buffer, reads it
/// back and checks it.
void round_trip(opened& c, host::block_io& io, std::uint32_t nsid, std::uint64_t lba, std::uint32_t blocks,
                dma_buffer& buf, std::size_t offset, std::uint64_t seed) {
  const std::uint32_t block = c.ctrl->namespace_by_id(nsid).block_size;
  const std::size_t bytes = std::size_t{blocks} * block;
  fill_pattern(buf.host() + offset, bytes, seed, lba * block);
  io.write(nsid, lba, blocks, buf, offset);
  std::memset(buf.host(), 0, buf.size());
  io.read(nsid, lba, blocks, buf, offset);
  const auto bad = find_mismatch(buf.host() + offset, bytes, seed, lba * block);
  EXPECT_FALSE(bad) << "namespace " << nsid << ", " << blocks << " blocks at LBA " << lba << " from offset " << offset
                    << ": first difference at byte " << bad.value_or(0);
}

TEST(Io, WriteReadVerifyOnBothBlockSizes) {
  opened c = open_controller(topology::main_ctrl);
  host::block_io io = c.io();
  dma_buffer buf = c.buffer(64 * 1024);
  for (const std::uint64_t lba : {0ull, 1ull, 1000ull, (64ull << 20) / 512 - 16})
    round_trip(c, io, 1, lba, 16, buf, 0, 11);
  for (const std::uint64_t lba : {0ull, 3ull, (16ull << 20) / 4096 - 2}) round_trip(c, io, 2, lba, 2, buf, 0, 22);
  // The namespaces are separate: namespace 2's LBA 0 still holds its own pattern after
  // namespace 1's LBA 0 was rewritten.
  round_trip(c, io, 1, 0, 8, buf, 0, 33);
  io.read(2, 0, 1, buf);
  EXPECT_FALSE(find_mismatch(buf.host(), 4096, 22, 0));
}

TEST(Io, EveryTransferSizeUpToMdts) {
  opened c = open_controller(topology::main_ctrl);
  host::block_io io = c.io();
  const std::size_t max = io.max_transfer_bytes();
  dma_buffer buf = c.buffer(max + 8192);
  std::size_t runs = 1;
  for (std::size_t o = 4096; o < buf.size(); o += 4096) runs += buf.bus_at(o) != buf.bus_at(o - 4096) + 4096;
  std::printf("  data buffer of %zu KiB: %zu bus-contiguous run(s)\n", buf.size() >> 10, runs);
  // 512 B blocks: PRP1 only, PRP2 = second page, a PRP list, and MDTS (chained lists for 4 MiB),
  // from a page-aligned buffer and from one starting 512 bytes into a page. QEMU maps at most
  // 1024 pages per command (IOV_MAX; more is "internal error"), so an unaligned transfer stops
  // one page short of MDTS = 1024 pages.
  std::uint64_t seed = 100;
  for (const std::size_t offset : {std::size_t{0}, std::size_t{512}})
    for (const std::size_t bytes : {std::size_t{512}, std::size_t{4096}, std::size_t{8192}, std::size_t{12288},
                                    std::size_t{68 * 1024}, std::size_t{2} << 20, max - 4096, max}) {
      if (offset != 0 && bytes == max && max == topology::main_mdts_bytes) continue;
      ++seed;
      round_trip(c, io, 1, 4096 + seed * 8, std::uint32_t(bytes / 512), buf, offset, seed);
    }
  // 4 KiB blocks up to MDTS.
  for (const std::size_t bytes : {std::size_t{4096}, std::size_t{8192}, std::size_t{3 * 4096}, max})
    round_trip(c, io, 2, 64, std::uint32_t(bytes / 4096), buf, 0, ++seed);
  // One buffer, many commands: every block read at its own offset.
  fill_pattern(buf.host(), 64 * 512, 7, 0);
  io.write(1, 0, 64, buf);
  std::memset(buf.host(), 0, 64 * 512);
  for (std::uint32_t b = 0; b < 64; ++b) io.read(1, b, 1, buf, b * 512);
  EXPECT_FALSE(find_mismatch(buf.host(), 64 * 512, 7, 0));
}

TEST(Io, LimitedMdtsAndTransfersBeyondIt) {
  opened c = open_controller(topology::limited_ctrl);
  host::block_io io = c.io();
  ASSERT_EQ(io.max_transfer_bytes(), topology::limited_mdts_bytes);
  dma_buffer buf = c.buffer(16 * 4096);
  for (std::uint32_t blocks = 1; blocks <= 8; ++blocks) round_trip(c, io, 1, blocks * 16, blocks, buf, 0, blocks);
  // Our driver refuses a transfer beyond MDTS before it reaches the device...
  EXPECT_THROW(io.read(1, 0, 9, buf), invalid_argument);
  // ...and the device refuses one that reaches it: 9 pages through a hand-made PRP list.
  dma_buffer list = c.buffer(4096);
  const queues::prp_pair prp = queues::build_prps([&](std::size_t o) { return buf.bus_at(o); }, 9 * 4096, 4096,
                                                  reinterpret_cast<std::uint64_t*>(list.host()), list.bus_at(0));
  const queues::completion_result r =
      io.queue().execute(nvme::make_read(1, 0, 9, prp.prp1, prp.prp2), 5'000'000'000ull);
  EXPECT_EQ(r.status, bam::status::io_error);
  EXPECT_EQ(r.nvme_status.sct(), nvme::status_type::generic);
  EXPECT_EQ(r.nvme_status.sc(), nvme::generic_status::invalid_field);
  round_trip(c, io, 1, 0, 8, buf, 0, 99);  // the queue pair still works
}

TEST(Io, FlushAndDataSurviveAShutdown) {
  {
    opened c = open_controller(topology::main_ctrl);
    host::block_io io = c.io();
    dma_buffer buf = c.buffer(32 * 512);
    fill_pattern(buf.host(), buf.size(), 5150, 20000 * 512);
    io.write(1, 20000, 32, buf);
    io.flush(1);
  }  // shut down here
  opened c = open_controller(topology::main_ctrl);
  host::block_io io = c.io();
  dma_buffer buf = c.buffer(32 * 512);
  io.read(1, 20000, 32, buf);
  EXPECT_FALSE(find_mismatch(buf.host(), buf.size(), 5150, 20000 * 512));
}

}  // namespace
}  // namespace bam::guest
