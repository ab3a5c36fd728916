// SPDX-License-Identifier: Apache-2.0
#include <bam/host/emulator/namespace_store.hpp>

#include <bam/synthetic.hpp>

#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace bam::host {

void namespace_store::check_block_size(const char* who, std::uint32_t block_size) {
  BAM_EXPECTS(block_size >= 512 && block_size <= 65536 && (block_size & (block_size - 1)) == 0,
              std::string(who) + ": block size " + std::to_string(block_size) +
                  " is not a power of two from 512 to 65536");
}

void fill_synthetic(namespace_store& ns, std::uint64_t seed, unsigned threads) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
  const std::uint64_t bytes = ns.n_blocks() * ns.block_size();
  threads = std::max(threads, 1u);
  std::vector<std::exception_ptr> failures(threads);
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      try {
        std::vector<std::byte> buf(std::min(chunk, bytes));
        for (std::uint64_t off = t * chunk; off < bytes; off += threads * chunk) {
          const std::uint64_t n = std::min(chunk, bytes - off);
          synthetic_fill(seed, off, buf.data(), n);
          ns.write(off / ns.block_size(), std::uint32_t(n / ns.block_size()), buf.data());
        }
      } catch (...) {
        failures[t] = std::current_exception();
      }
    });
  }
  for (auto& t : team) t.join();
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}

}  // namespace bam::host
