// SPDX-License-Identifier: Apache-2.0
#include "apps/bam-nvme/commands.hpp"

#include "apps/bam-nvme/pattern.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iterator>
#include <random>
#include <string_view>
#include <thread>
#include <vector>

namespace bam::nvme_tool {

namespace {

host::binding_kind kind_of(const target_flags& f) {
  const int given = int(!f.vfio.empty()) + int(!f.uio.empty()) + int(!f.kmod.empty());
  BAM_EXPECTS(given == 1, "give exactly one of --vfio BDF, --uio BDF, --kmod /dev/bamN");
  return !f.vfio.empty()  ? host::binding_kind::vfio
         : !f.uio.empty() ? host::binding_kind::uio
                          : host::binding_kind::kmod;
}

const std::string& address_of(const target_flags& f) {
  return !f.vfio.empty() ? f.vfio : !f.uio.empty() ? f.uio : f.kmod;
}

host::binding_options binding_options_of(const target_flags& f) {
  host::binding_options o;
  o.no_iommu = f.no_iommu;
  o.memory.pages = f.small_pages ? host::page_policy::small : host::page_policy::huge_when_available;
  return o;
}

host::controller_options controller_options_of(const target_flags& f) {
  host::controller_options o;
  o.io_queue_pairs = f.queues;
  o.queue_depth = f.depth;
  o.driver = host::io_driver::cpu;
  o.admin_timeout = std::chrono::milliseconds(f.timeout_ms);
  return o;
}

std::string trimmed(const char* field, std::size_t n) {
  std::string s(field, n);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

void hexdump(const std::byte* data, std::size_t bytes, std::uint64_t base) {
  for (std::size_t line = 0; line < bytes; line += 16) {
    std::printf("%010llx ", static_cast<unsigned long long>(base + line));
    for (std::size_t i = line; i < line + 16 && i < bytes; ++i) std::printf(" %02x", unsigned(data[i]));
    std::printf("\n");
  }
}

/// Blocks per command: what fits MDTS.
std::uint32_t blocks_per_command(const host::block_io& io, std::uint32_t block) {
  return std::uint32_t(std::min<std::size_t>(io.max_transfer_bytes() / block, 65536));
}

}  // namespace

session::session(const target_flags& flags)
    : flags_(flags),
      binding_(kind_of(flags), address_of(flags), binding_options_of(flags)),
      controller_(binding_.bar(), binding_.memory(), controller_options_of(flags)) {}

host::block_io session::io(std::size_t queue) {
  host::block_io_options o;
  o.timeout = std::chrono::milliseconds(flags_.timeout_ms);
  return host::block_io(controller_, binding_.memory(), queue, o);
}

int identify(session& s) {
  const host::controller& c = s.controller();
  const nvme::identify_controller& id = c.identity();
  const nvme::vs_register vs{c.bar().read32(nvme::reg::vs)};
  std::printf("binding      %s\n", s.binding().name().c_str());
  std::printf("serial       %s\n", trimmed(id.sn, sizeof id.sn).c_str());
  std::printf("model        %s\n", trimmed(id.mn, sizeof id.mn).c_str());
  std::printf("firmware     %s\n", trimmed(id.fr, sizeof id.fr).c_str());
  std::printf("pci ids      %04x:%04x\n", unsigned(id.vid), unsigned(id.ssvid));
  std::printf("version      %u.%u\n", vs.major(), vs.minor());
  std::printf("page size    %zu\n", c.page_bytes());
  if (c.max_transfer_bytes() != 0)
    std::printf("max transfer %zu bytes (MDTS %u)\n", c.max_transfer_bytes(), unsigned(id.mdts));
  else
    std::printf("max transfer unlimited (MDTS 0)\n");
  std::printf("queue pairs  %zu granted of %u requested, %u entries each\n", c.io_queues().size(), s.requested_queues(),
              c.queue_depth());
  for (const host::namespace_info& ns : c.namespaces())
    std::printf("namespace %u  %llu blocks of %u bytes (%llu MiB)\n", ns.nsid,
                static_cast<unsigned long long>(ns.n_blocks), ns.block_size,
                static_cast<unsigned long long>(ns.n_blocks * ns.block_size >> 20));
  return 0;
}

int read(session& s, const transfer_flags& f) {
  const host::namespace_info& ns = s.controller().namespace_by_id(f.nsid);
  BAM_EXPECTS(f.blocks > 0, "read: --blocks must be at least 1");
  host::block_io io = s.io();
  const std::uint32_t per = blocks_per_command(io, ns.block_size);
  const std::size_t bytes = f.blocks * ns.block_size;
  dma_buffer buf = s.binding().memory().allocate(bytes, memory_kind::host);
  for (std::uint64_t done = 0; done < f.blocks; done += per) {
    const auto n = std::uint32_t(std::min<std::uint64_t>(per, f.blocks - done));
    io.read(f.nsid, f.lba + done, n, buf, done * ns.block_size);
  }
  if (f.pattern) {
    const auto bad = find_mismatch(buf.host(), bytes, *f.pattern, f.lba * ns.block_size);
    if (bad) {
      std::fprintf(stderr, "read: data differs from pattern %llu at byte %zu (LBA %llu)\n",
                   static_cast<unsigned long long>(*f.pattern), *bad,
                   static_cast<unsigned long long>(f.lba + *bad / ns.block_size));
      return 1;
    }
    std::printf("read: %llu blocks from LBA %llu match pattern %llu\n", static_cast<unsigned long long>(f.blocks),
                static_cast<unsigned long long>(f.lba), static_cast<unsigned long long>(*f.pattern));
  }
  if (!f.file.empty()) {
    std::ofstream out(f.file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(buf.host()), std::streamsize(bytes));
    if (!out) throw system_error("read: cannot write " + f.file);
  } else if (!f.pattern) {
    hexdump(buf.host(), bytes, f.lba * ns.block_size);
  }
  return 0;
}

int write(session& s, const transfer_flags& f) {
  const host::namespace_info& ns = s.controller().namespace_by_id(f.nsid);
  BAM_EXPECTS(f.file.empty() != !f.pattern, "write: give exactly one of --in FILE and --pattern SEED");
  std::vector<char> data;
  if (!f.file.empty()) {
    std::ifstream in(f.file, std::ios::binary);
    if (!in) throw system_error("write: cannot open " + f.file);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::uint64_t blocks = f.blocks != 0 ? f.blocks : (data.size() + ns.block_size - 1) / ns.block_size;
  BAM_EXPECTS(blocks > 0, "write: nothing to write (give --blocks, or a non-empty --in file)");
  const std::size_t bytes = blocks * ns.block_size;
  dma_buffer buf = s.binding().memory().allocate(bytes, memory_kind::host);
  if (f.pattern)
    fill_pattern(buf.host(), bytes, *f.pattern, f.lba * ns.block_size);
  else
    std::memcpy(buf.host(), data.data(), std::min(bytes, data.size()));  // the rest stays zero
  host::block_io io = s.io();
  const std::uint32_t per = blocks_per_command(io, ns.block_size);
  for (std::uint64_t done = 0; done < blocks; done += per) {
    const auto n = std::uint32_t(std::min<std::uint64_t>(per, blocks - done));
    io.write(f.nsid, f.lba + done, n, buf, done * ns.block_size);
  }
  io.flush(f.nsid);
  std::printf("write: %llu blocks of %u bytes at LBA %llu of namespace %u\n", static_cast<unsigned long long>(blocks),
              ns.block_size, static_cast<unsigned long long>(f.lba), f.nsid);
  return 0;
}

int bench(session& s, const bench_flags& f) {
  const host::controller& c = s.controller();
  const host::namespace_info& ns = c.namespace_by_id(f.nsid);
  BAM_EXPECTS(f.op == "read" || f.op == "write", "bench: --op must be read or write");
  BAM_EXPECTS(f.threads >= 1 && f.per_thread_depth >= 1 && f.blocks_per_io >= 1, "bench: counts must be at least 1");
  const std::uint64_t span = f.span != 0 ? std::min(f.span, ns.n_blocks) : ns.n_blocks;
  BAM_EXPECTS(span >= f.blocks_per_io, "bench: the span is smaller than one I/O");
  const std::size_t n_queues = c.io_queues().size();
  const std::size_t threads_per_queue = (f.threads + n_queues - 1) / n_queues;
  // block_io's progress rule: threads that share a queue pair keep one command in flight each.
  BAM_EXPECTS(threads_per_queue == 1 || f.per_thread_depth == 1,
              "bench: " + std::to_string(f.threads) + " threads share " + std::to_string(n_queues) +
                  " queue pairs, so each keeps one command in flight: use --depth 1, or at most as many threads as "
                  "queue pairs (--queues)");
  BAM_EXPECTS(f.per_thread_depth < c.queue_depth(),
              "bench: --depth must be below the queue depth (" + std::to_string(c.queue_depth()) + ")");
  const bool writing = f.op == "write";
  const std::size_t io_bytes = std::size_t{f.blocks_per_io} * ns.block_size;

  std::vector<std::unique_ptr<host::block_io>> ios;
  for (std::size_t q = 0; q < std::min<std::size_t>(n_queues, f.threads); ++q)
    ios.push_back(std::make_unique<host::block_io>(s.io(q)));
  std::atomic<std::uint64_t> completed{0};
  std::atomic<std::uint64_t> mismatches{0};
  std::vector<std::exception_ptr> failures(f.threads);
  const auto start = std::chrono::steady_clock::now();
  const auto stop =
      start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(f.seconds));
  std::vector<std::thread> workers;
  for (std::uint32_t t = 0; t < f.threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        host::block_io& io = *ios[t % ios.size()];
        std::mt19937_64 rng(f.seed * 1000003 + t);
        std::uniform_int_distribution<std::uint64_t> pick(0, span / f.blocks_per_io - 1);
        std::vector<dma_buffer> bufs;
        for (std::uint32_t i = 0; i < f.per_thread_depth; ++i)
          bufs.push_back(s.binding().memory().allocate(io_bytes, memory_kind::host));
        struct in_flight {
          std::uint64_t ticket;
          std::uint64_t lba;
          std::size_t buf;
        };
        std::deque<in_flight> q;
        std::size_t next_buf = 0;
        auto finish_oldest = [&] {
          const in_flight done = q.front();
          q.pop_front();
          io.wait(done.ticket);
          if (!writing && f.verify &&
              find_mismatch(bufs[done.buf].host(), io_bytes, *f.verify, done.lba * ns.block_size))
            mismatches.fetch_add(1, std::memory_order_relaxed);
          completed.fetch_add(1, std::memory_order_relaxed);
          return done.buf;
        };
        while (std::chrono::steady_clock::now() < stop) {
          const std::size_t b = q.size() < f.per_thread_depth ? next_buf++ : finish_oldest();
          const std::uint64_t lba = pick(rng) * f.blocks_per_io;
          if (writing) fill_pattern(bufs[b].host(), io_bytes, f.verify.value_or(f.seed), lba * ns.block_size);
          q.push_back({io.submit(writing ? nvme::io_opcode::write : nvme::io_opcode::read, f.nsid, lba, f.blocks_per_io,
                                 bufs[b]),
                       lba, b});
        }
        while (!q.empty()) finish_oldest();
      } catch (...) {
        failures[t] = std::current_exception();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (const auto& e : failures)
    if (e) std::rethrow_exception(e);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double ops = double(completed.load());
  std::printf(
      "bench: %s %u x %zu-byte I/Os: %llu in %.2f s = %.0f IOPS, %.1f MiB/s (%u threads x depth %u, %zu queue pairs)\n",
      f.op.c_str(), f.blocks_per_io, io_bytes, static_cast<unsigned long long>(completed.load()), secs, ops / secs,
      ops * double(io_bytes) / secs / double(1 << 20), f.threads, f.per_thread_depth, ios.size());
  if (f.verify && !writing) {
    std::printf("bench: %llu reads checked against pattern %llu, %llu differed\n",
                static_cast<unsigned long long>(completed.load()), static_cast<unsigned long long>(*f.verify),
                static_cast<unsigned long long>(mismatches.load()));
    if (mismatches.load() != 0) return 1;
  }
  return 0;
}

}  // namespace bam::nvme_tool
