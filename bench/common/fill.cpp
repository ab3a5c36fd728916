// SPDX-License-Identifier: Apache-2.0
#include "bench/common/fill.hpp"

#include <bam/error.hpp>
#include <bam/synthetic.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

namespace bam::bench {

void fill_synthetic(host::namespace_store& ns, std::uint64_t seed, std::byte* copy, const std::string& file_path) {
  const std::uint64_t bytes = ns.n_blocks() * ns.block_size();
  const std::uint64_t chunk = 8u << 20;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      std::vector<std::byte> buf(chunk);
      for (std::uint64_t off = t * chunk; off < bytes; off += threads * chunk) {
        const std::uint64_t n = std::min(chunk, bytes - off);
        synthetic_fill(seed, off, buf.data(), n);
        ns.write(off / ns.block_size(), std::uint32_t(n / ns.block_size()), buf.data());
        if (copy) std::memcpy(copy + off, buf.data(), n);
      }
    });
  }
  for (auto& th : team) th.join();
  if (file_path.empty()) return;
  std::ofstream f(file_path, std::ios::binary);
  std::vector<std::byte> buf(chunk);
  for (std::uint64_t off = 0; off < bytes; off += chunk) {
    const std::uint64_t n = std::min(chunk, bytes - off);
    synthetic_fill(seed, off, buf.data(), n);
    f.write(reinterpret_cast<const char*>(buf.data()), std::streamsize(n));
  }
  if (!f) throw system_error("fill_synthetic: cannot write " + file_path);
}

}  // namespace bam::bench
