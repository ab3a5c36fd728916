// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/app/app.hpp"

#include "apps/graph/app/report.hpp"
#include "apps/graph/gpu/graph_storage.hpp"
#include "apps/graph/source_picker.hpp"

#include "apps/common/gpu_query.hpp"
#include "apps/common/storage_cli.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

namespace bam::graph::app {

namespace {

struct app_options {
  std::string graph;
  std::string backend = "ram";
  apps::storage_flags storage;
  std::vector<std::uint64_t> sources;
  unsigned trials = 1;
  std::string output, json, plot;
  bool verify = false, cpu = false, quiet = false, check_file = false;
  unsigned threads = 0;
};

void add_options(CLI::App& cli, app_options& a, const algorithm& alg) {
  cli.add_option("graph", a.graph, "bam CSR graph file (bam-graph generate / convert)")->required();
  cli.add_option("-b,--backend", a.backend,
                 "where the edges are read from: ram (emulated NVMe namespace in RAM, through the page cache), "
                 "file (the graph file as the namespace), vram, pinned (zero-copy), managed (Unified Memory), "
                 "memory (CPU threads, plain memory)")
      ->check(CLI::IsMember({"ram", "file", "vram", "pinned", "managed", "memory"}))
      ->capture_default_str();
  apps::add_storage_options(cli, a.storage);
  if (alg.uses_source()) {
    cli.add_option("-s,--source", a.sources, "source vertices (default: picked as GAP does, one per trial)")
        ->delimiter(',');
  }
  cli.add_option("-n,--trials", a.trials, "runs (with picked sources: one source each)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cli.add_option("-o,--output", a.output, "write the last trial's per-vertex result here (vertex<TAB>value lines)");
  cli.add_option("--json", a.json, "write the JSON summary here (- for stdout)");
  cli.add_option("--plot", a.plot, "draw the per-iteration cache profile as PNG (needs --json; python3 + matplotlib)");
  cli.add_flag("--verify", a.verify, "check every trial against the CPU reference");
  cli.add_flag("--cpu", a.cpu, "run on CPU threads even when a GPU is present");
  cli.add_option("--threads", a.threads, "CPU threads for the CPU engine and --verify (default: all)");
  cli.add_flag("--check-file", a.check_file, "verify the graph file's checksums and structure before running");
  cli.add_flag("-q,--quiet", a.quiet, "no progress on stderr");
}

/// The graph where the backend reads it, and the views the kernels take.
struct placed_graph {
  std::unique_ptr<gpu::cached_graph> cached;
  std::unique_ptr<gpu::resident_graph> resident;
  std::optional<any_view> view;  ///< set by place()
  std::uint64_t cache_bytes = 0;
};

placed_graph place(const csr_file& file, const app_options& a, bool gpu) {
  placed_graph p;
  const bool wide = file.header().id_bytes == 8;
  if (a.backend == "ram" || a.backend == "file") {
    const std::uint64_t edge_bytes = file.header().num_edges * (file.header().id_bytes + file.header().weight_bytes);
    const auto backend = a.backend == "file" ? apps::storage_backend::file : apps::storage_backend::ram;
    p.cached = std::make_unique<gpu::cached_graph>(file, a.storage.options(backend, gpu, edge_bytes));
    p.cache_bytes = p.cached->cache_bytes();
    if (wide) p.view = p.cached->view<std::uint64_t>();
    else p.view = p.cached->view<std::uint32_t>();
    return p;
  }
  const gpu::placement where = a.backend == "vram"     ? gpu::placement::vram
                               : a.backend == "pinned" ? gpu::placement::pinned
                               : a.backend == "managed" ? gpu::placement::managed
                                                        : gpu::placement::host;
  BAM_EXPECTS(gpu || where == gpu::placement::host, "--backend " + a.backend + " needs a GPU");
  BAM_EXPECTS(!gpu || where != gpu::placement::host, "--backend memory runs on CPU threads: add --cpu");
  p.resident = std::make_unique<gpu::resident_graph>(file, where);
  if (wide) p.view = p.resident->view<std::uint64_t>();
  else p.view = p.resident->view<std::uint32_t>();
  return p;
}

/// The sources of the trials: given, or GAP's picks.
std::vector<std::uint64_t> trial_sources(const csr_file& file, const app_options& a, bool uses_source) {
  if (!uses_source) return std::vector<std::uint64_t>(a.trials, 0);
  const std::uint64_t n = file.header().num_vertices;
  for (const std::uint64_t s : a.sources) {
    BAM_EXPECTS(s < n, "source " + std::to_string(s) + " is not one of the " + std::to_string(n) + " vertices");
  }
  if (!a.sources.empty()) return a.sources;
  return visit_view(file, [&](const auto& g) {
    source_picker picker(g);
    std::vector<std::uint64_t> s(a.trials);
    for (auto& v : s) v = picker.next();
    return s;
  });
}

}  // namespace

int app_main(algorithm& alg, int argc, char** argv) {
  const std::string command = "bam-" + alg.name();
  CLI::App cli{command + ": " + alg.description()};
  app_options a;
  add_options(cli, a, alg);
  alg.add_options(cli);
  CLI11_PARSE(cli, argc, argv);
  try {
    BAM_EXPECTS(a.plot.empty() || !a.json.empty(), "--plot needs --json (the plot is drawn from the JSON summary)");
    const bool gpu = apps::use_gpu(a.cpu);
    if (!gpu) {
      std::fprintf(stderr, "%s: no GPU in use%s: CPU threads run the same per-vertex steps the GPU kernels run.\n",
                   command.c_str(), a.cpu ? " (--cpu)" : " (none found, or a CPU-only build)");
    }
    const csr_file file = csr_file::open(a.graph, a.check_file ? verify_level::full : verify_level::header, a.threads);
    if (alg.uses_weights() && !file.header().weighted()) {
      throw graph_error(a.graph + ": " + command + " needs a weighted graph (bam-graph generate --weighted)");
    }
    placed_graph placed = place(file, a, gpu);
    const std::vector<std::uint64_t> sources = trial_sources(file, a, alg.uses_source());
    run_report report(command, file, a.backend, gpu, placed.cached ? &placed.cached->cache() : nullptr,
                      placed.cache_bytes, alg.uses_weights());
    bool all_verified = true;
    for (std::size_t t = 0; t < sources.size(); ++t) {
      gpu::run_options o;
      o.where = gpu ? gpu::engine::gpu : gpu::engine::cpu;
      o.cpu_threads = a.threads;
      auto trial = report.start_trial(t, sources.size(), a.quiet);
      o.on_iteration = [&trial](const gpu::iteration_info& info) { trial.step(info); };
      const trial_outcome out = alg.run(file, *placed.view, sources[t], o);
      std::string verdict;
      if (a.verify) {
        verdict = alg.verify(file, sources[t], a.threads);
        all_verified &= verdict.empty();
      }
      report.finish_trial(std::move(trial), sources[t], alg.uses_source(), out, a.verify, verdict);
    }
    if (!a.output.empty()) {
      std::ofstream out(a.output);
      alg.write(out);
      BAM_EXPECTS(static_cast<bool>(out), a.output + ": cannot write the results");
    }
    std::fputs(report.table().c_str(), stdout);
    if (!a.json.empty()) report.write_json(a.json);
    if (!a.plot.empty()) plot_profile(a.json, a.plot);
    if (!all_verified) {
      std::fprintf(stderr, "%s: --verify: the result differs from the CPU reference\n", command.c_str());
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", command.c_str(), e.what());
    return 1;
  }
}

}  // namespace bam::graph::app
