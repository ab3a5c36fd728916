// SPDX-License-Identifier: Apache-2.0
#include "bench/graphs/graph_files.hpp"

#include "apps/graph/error.hpp"
#include "apps/graph/graph_builder.hpp"
#include "apps/common/parallel.hpp"

#include <bam/error.hpp>
#include <bam/host/drivers/posix_io.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace bam::bench {

std::string graph_spec::name() const {
  return (kind == graph::gap_kind::kron ? "kron" : "urand") + std::to_string(scale);
}

std::filesystem::path ensure_graph(const std::filesystem::path& work_dir, const graph_spec& spec) {
  std::filesystem::create_directories(work_dir);
  const auto path = work_dir / (spec.name() + ".bcsr");
  if (std::filesystem::exists(path)) {
    const auto file = graph::csr_file::open(path, graph::verify_level::header);
    const auto& h = file.header();
    if (h.num_vertices != (std::uint64_t{1} << spec.scale) || !h.weighted() || !h.symmetric()) {
      throw graph::graph_error(path.string() + " is not the weighted, symmetric GAP graph " +
                               spec.name() + ": delete it to generate it again");
    }
    std::printf("reusing %s\n", path.c_str());
    return path;
  }
  std::printf("generating %s (GAP %s, degree 16, weighted)...\n", path.c_str(), spec.name().c_str());
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  graph::build_options options;
  options.symmetrize = true;
  options.weights = graph::weight_policy::gap;
  std::mutex print;
  std::string last_phase;
  options.progress = [&](const graph::build_progress& p) {
    std::lock_guard lock(print);
    if (p.phase != last_phase) {
      last_phase = p.phase;
      std::printf("  %s (%.0f s)\n", last_phase.c_str(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      std::fflush(stdout);
    }
  };
  const auto r = graph::build_csr_file(graph::gap_generator(spec.kind, spec.scale, 16), path, options);
  std::printf("wrote %s: %llu vertices, %llu arcs in %.0f s\n", path.c_str(),
              (unsigned long long)r.header.num_vertices, (unsigned long long)r.header.num_edges,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return path;
}

void evict_from_page_cache(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) host::throw_errno(path.string(), "cannot open", errno);
  const int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  if (rc != 0) host::throw_errno(path.string(), "posix_fadvise(DONTNEED)", rc);
}

std::uint64_t load_sections(const graph::csr_file& file, bool with_weights, unsigned threads) {
  const auto& h = file.header();
  return graph::visit_view(file, [&](const auto& g) {
    std::atomic<std::uint64_t> sum{0};
    const auto touch = [&](const void* data, std::uint64_t bytes) {
      const auto* p = static_cast<const volatile std::uint8_t*>(data);
      constexpr std::uint64_t page = 4096, grain = std::uint64_t{4} << 20;
      apps::parallel_for_ranges(bytes, grain, threads, [&](std::uint64_t a, std::uint64_t z, unsigned) {
        std::uint64_t local = 0;
        for (std::uint64_t i = a; i < z; i += page) local += p[i];
        sum.fetch_add(local, std::memory_order_relaxed);
      });
    };
    touch(g.offsets.data(), g.offsets.size_bytes());
    touch(g.neighbors.data(), g.neighbors.size_bytes());
    if (with_weights && h.weighted()) touch(g.weights.data(), g.weights.size_bytes());
    return sum.load();
  });
}

}  // namespace bam::bench
