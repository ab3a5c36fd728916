// SPDX-License-Identifier: Apache-2.0
#include "apps/bam-demo/readers.hpp"

#include <chrono>
#include <thread>

namespace bam::demo {

run_totals run_cpu_readers(const read_plan& p) {
  std::vector<reader_totals> per(p.readers);
  const std::size_t frame = std::size_t{p.blocks} * p.block_bytes;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> team;
  for (std::uint64_t r = 0; r < p.readers; ++r) {
    team.emplace_back([&, r] {
      const auto& qp = (*p.pairs)[r % p.pairs->size()];
      per[r] = read_and_verify(qp, p.frames->host() + r * frame, p.frames->bus_at(r * frame), p.blocks, p.block_bytes,
                               p.n_blocks, p.seed, r, p.reads_per_reader, p.timeout_ns);
    });
  }
  for (auto& t : team) t.join();
  run_totals out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& t : per) {
    out.totals.reads += t.reads;
    out.totals.bad_bytes += t.bad_bytes;
    if (t.failures && !out.totals.failures) out.totals.first_status = t.first_status, out.totals.first_lba = t.first_lba;
    out.totals.failures += t.failures;
  }
  return out;
}

}  // namespace bam::demo
