// SPDX-License-Identifier: Apache-2.0
#include "apps/bam-demo/bfs_demo.hpp"

#include "apps/graph/app/app.hpp"
#include "apps/graph/app/report.hpp"
#include "apps/graph/bfs.hpp"
#include "apps/graph/csr_file.hpp"
#include "apps/graph/gap_generator.hpp"
#include "apps/graph/gpu/graph_storage.hpp"
#include "apps/graph/gpu/runners.hpp"
#include "apps/graph/graph_builder.hpp"
#include "apps/graph/source_picker.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

namespace bam::demo {

bool run_bfs_demo(const bfs_demo_options& o) {
  namespace fs = std::filesystem;
  namespace gk = bam::graph::gpu;
  const fs::path path = fs::path(o.out) / ("kron-" + std::to_string(o.scale) + ".bcsr");
  const auto t0 = std::chrono::steady_clock::now();
  graph::build_options bo;
  bo.symmetrize = true;
  bo.weights = graph::weight_policy::none;
  bo.id_bytes = 4;
  graph::build_csr_file(graph::gap_generator(graph::gap_kind::kron, o.scale, 16), path, bo);
  const graph::csr_file file = graph::csr_file::open(path);
  const auto& h = file.header();
  std::printf("BFS on GAP kron scale %d (%llu vertices, %llu edges, %.1f MiB of edges) generated in %.2f s: %s\n",
              o.scale, (unsigned long long)h.num_vertices, (unsigned long long)h.num_edges,
              double(h.num_edges) * 4 / double(1 << 20),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), path.c_str());

  const std::uint64_t source = graph::source_picker<std::uint32_t>(file.view<std::uint32_t>()).next();
  const std::vector<std::uint32_t> reference = graph::bfs_depths(file.view<std::uint32_t>(), source);
  gk::bfs_options run;
  run.where = o.gpu ? gk::engine::gpu : gk::engine::cpu;

  // Through the cache: the edges on an emulated NVMe namespace, a cache of 1/8 of them.
  apps::storage_options co;
  co.gpu = o.gpu;
  co.page_bytes = o.page_bytes;
  co.cache_bytes = h.num_edges * 4 / 8;  // rounded up to whole pages, at least apps::min_cache_pages
  gk::cached_graph cached(file, co);
  graph::app::run_report report("bfs", file, "ram", o.gpu, &cached.cache(), cached.cache_bytes(), false);
  auto trial = report.start_trial(0, 1, true);
  run.on_iteration = [&](const gk::iteration_info& i) { trial.step(i); };
  const gk::bfs_result through_cache = gk::run_bfs(cached.view<std::uint32_t>(), source, run);
  run.on_iteration = nullptr;
  const std::string cache_verdict = graph::app::first_difference(through_cache.depth, reference, "depth");
  graph::app::trial_outcome outcome;
  outcome.seconds = through_cache.seconds;
  outcome.edges_examined = through_cache.edges_examined;
  outcome.edges_traversed = outcome.edges_needed = graph::app::reached_edges(file, reference, graph::bfs_unreached);
  report.finish_trial(std::move(trial), source, true, outcome, true, cache_verdict);

  // The same BFS with the whole graph in memory (VRAM on a GPU).
  gk::resident_graph resident(file, o.gpu ? gk::placement::vram : gk::placement::host);
  const gk::bfs_result in_memory = gk::run_bfs(resident.view<std::uint32_t>(), source, run);
  const std::string memory_verdict = graph::app::first_difference(in_memory.depth, reference, "depth");

  const auto s = cached.cache().total_stats();
  std::printf("  through a %.1f MiB cache: %8.2f ms, %u levels, hit rate %.1f%%, %.1f MiB read: %s\n",
              double(cached.cache_bytes()) / double(1 << 20), through_cache.seconds * 1e3, through_cache.levels,
              100 * s.hit_rate(), double(s.counts.bytes_read) / double(1 << 20),
              cache_verdict.empty() ? "depths match the reference" : cache_verdict.c_str());
  std::printf("  from %-6s memory:    %8.2f ms, %u levels: %s\n", gk::to_string(resident.where()),
              in_memory.seconds * 1e3, in_memory.levels,
              memory_verdict.empty() ? "depths match the reference" : memory_verdict.c_str());
  const fs::path json = fs::path(o.out) / "bfs.json", png = fs::path(o.out) / "bfs.png";
  report.write_json(json);
  graph::app::plot_profile(json, png);
  std::printf("wrote %s%s\n", json.c_str(), fs::exists(png) ? (", " + png.string()).c_str() : "");
  return cache_verdict.empty() && memory_verdict.empty();
}

}  // namespace bam::demo
