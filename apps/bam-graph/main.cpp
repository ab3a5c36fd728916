// SPDX-License-Identifier: Apache-2.0
// bam-graph: generate GAP graphs, convert edge lists and Matrix Market files, and describe CSR
// files (docs/csr-format.md).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "apps/graph/csr_file.hpp"
#include "apps/graph/edge_list.hpp"
#include "apps/graph/error.hpp"
#include "apps/graph/gap_generator.hpp"
#include "apps/graph/graph_builder.hpp"
#include "apps/graph/graph_stats.hpp"
#include "apps/graph/matrix_market.hpp"

namespace {

using namespace bam::graph;
using clock_type = std::chrono::steady_clock;

/// Prints build progress on stderr: a line per phase, updated in place on a terminal and every
/// 10% otherwise.
class progress_printer {
 public:
  void operator()(const build_progress& p) {
    const bool new_phase = p.phase != phase_;
    const auto percent = p.total == 0 ? 100 : static_cast<int>(100 * p.done / p.total);
    const auto now = clock_type::now();
    if (!new_phase && percent < last_percent_ + (tty_ ? 1 : 10) && p.done != p.total) return;
    if (!new_phase && tty_ && now - last_print_ < std::chrono::milliseconds(200) &&
        p.done != p.total) {
      return;
    }
    if (new_phase && !phase_.empty() && tty_) std::fputc('\n', stderr);
    phase_ = p.phase;
    last_percent_ = percent;
    last_print_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, tty_ ? "\r[%7.1fs] %-14s %3d%%" : "[%7.1fs] %-14s %3d%%\n", seconds,
                 phase_.c_str(), percent);
    std::fflush(stderr);
  }
  void close() const {
    if (tty_ && !phase_.empty()) std::fputc('\n', stderr);
  }

 private:
  bool tty_ = ::isatty(STDERR_FILENO) != 0;
  std::string phase_;
  int last_percent_ = 0;
  clock_type::time_point start_ = clock_type::now();
  clock_type::time_point last_print_ = start_;
};

/// Options shared by generate and convert.
struct build_flags {
  std::string output;
  unsigned threads = 0;
  double memory_gib = 0;
  bool quiet = false;

  void add_to(CLI::App& cmd) {
    cmd.add_option("-o,--output", output, "CSR file to write")->required();
    cmd.add_option("-t,--threads", threads, "worker threads (default: all cores)");
    cmd.add_option("--memory-gib", memory_gib,
                   "memory for one bucket of edges, in GiB (default: half of RAM)");
    cmd.add_flag("-q,--quiet", quiet, "no progress on stderr");
  }
};

int build(const edge_source& source, const build_flags& flags, build_options options) {
  progress_printer printer;
  options.threads = flags.threads;
  options.memory_budget_bytes = static_cast<std::uint64_t>(flags.memory_gib * double(1u << 30));
  if (!flags.quiet) options.progress = std::ref(printer);
  const auto start = clock_type::now();
  const build_result r = build_csr_file(source, flags.output, options);
  printer.close();
  const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  const csr_header& h = r.header;
  fmt::print("wrote {}: {} vertices, {}, {}-byte ids, {} ({} input edges, {} bucket{}, {:.2f} s)\n",
             flags.output, h.num_vertices,
             h.symmetric()
                 ? fmt::format("{} undirected edges ({} arcs)", h.num_edges / 2, h.num_edges)
                 : fmt::format("{} directed edges", h.num_edges),
             h.id_bytes, h.weighted() ? "weighted" : "unweighted", r.input_edges, r.buckets,
             r.buckets == 1 ? "" : "s", seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bam-graph: make and inspect CSR graph files for bam (docs/csr-format.md)"};
  app.require_subcommand(1);

  auto* generate = app.add_subcommand("generate", "generate a GAP Benchmark Suite graph");
  std::optional<int> kron_scale;
  std::optional<int> urand_scale;
  int degree = 16;
  bool weighted = false;
  build_flags generate_flags;
  auto* kron_opt = generate
                       ->add_option("-g,--kron", kron_scale,
                                    "Kronecker (R-MAT) graph with 2^SCALE vertices (GAP -g)")
                       ->type_name("SCALE");
  auto* urand_opt = generate
                        ->add_option("-u,--urand", urand_scale,
                                     "uniform random graph with 2^SCALE vertices (GAP -u)")
                        ->type_name("SCALE");
  kron_opt->excludes(urand_opt);
  generate->add_option("-k,--degree", degree, "edges generated per vertex (GAP -k)")
      ->capture_default_str();
  generate->add_flag("-w,--weighted", weighted, "add GAP's uniform 1..255 weights");
  generate_flags.add_to(*generate);

  auto* convert = app.add_subcommand("convert", "convert an edge list or Matrix Market file");
  std::string edge_list_in;
  std::string matrix_market_in;
  bool symmetrize = false;
  bool gap_weights = false;
  bool drop_weights = false;
  build_flags convert_flags;
  auto* el_opt = convert
                     ->add_option("--edge-list", edge_list_in,
                                  "text edge list: \"u v\" or \"u v w\" per line, 0-based")
                     ->check(CLI::ExistingFile);
  auto* mm_opt =
      convert->add_option("--matrix-market", matrix_market_in, "Matrix Market coordinate file")
          ->check(CLI::ExistingFile);
  el_opt->excludes(mm_opt);
  convert->add_flag("-s,--symmetrize", symmetrize, "store every edge in both directions");
  auto* gap_opt = convert->add_flag("--gap-weights", gap_weights,
                                    "draw GAP's uniform 1..255 weights, ignoring any in the input");
  auto* drop_opt = convert->add_flag("--drop-weights", drop_weights, "write an unweighted graph");
  gap_opt->excludes(drop_opt);
  convert_flags.add_to(*convert);

  auto* stats = app.add_subcommand("stats", "check a CSR file and print its statistics");
  std::string stats_file;
  bool json = false;
  std::string verify = "full";
  unsigned stats_threads = 0;
  stats->add_option("file", stats_file, "CSR file")->required();
  stats->add_flag("--json", json, "print JSON instead of text");
  stats->add_option("--verify", verify, "how much to check: header, checksums or full")
      ->capture_default_str()
      ->check(CLI::IsMember({"header", "checksums", "full"}));
  stats->add_option("-t,--threads", stats_threads, "worker threads (default: all cores)");

  CLI11_PARSE(app, argc, argv);

  try {
    if (generate->parsed()) {
      if (!kron_scale && !urand_scale) throw CLI::RequiredError("-g,--kron or -u,--urand");
      const gap_generator source(kron_scale ? gap_kind::kron : gap_kind::urand,
                                 kron_scale ? *kron_scale : *urand_scale, degree);
      build_options options;
      options.symmetrize = true;  // GAP symmetrizes generated graphs
      options.weights = weighted ? weight_policy::gap : weight_policy::none;
      return build(source, generate_flags, options);
    }
    if (convert->parsed()) {
      build_options options;
      options.symmetrize = symmetrize;
      options.weights = gap_weights    ? weight_policy::gap
                        : drop_weights ? weight_policy::none
                                       : weight_policy::keep;
      if (!edge_list_in.empty())
        return build(edge_list_source(edge_list_in), convert_flags, options);
      if (matrix_market_in.empty()) throw CLI::RequiredError("--edge-list or --matrix-market");
      const matrix_market_source source(matrix_market_in);
      if (source.values() == matrix_market_source::value_kind::real &&
          options.weights == weight_policy::keep) {
        throw graph_error(matrix_market_in +
                          ": real values cannot be stored as integer weights; pass --drop-weights "
                          "or --gap-weights");
      }
      return build(source, convert_flags, options);
    }
    const verify_level level = verify == "header"      ? verify_level::header
                               : verify == "checksums" ? verify_level::checksums
                                                       : verify_level::full;
    const csr_file file = csr_file::open(stats_file, level, stats_threads);
    const graph_stats s = compute_stats(file, stats_threads);
    if (json) {
      fmt::print("{}\n", to_json(s).dump(2));
    } else {
      fmt::print("{}", to_text(s));
    }
    return 0;
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bam-graph: error: {}\n", e.what());
    return 1;
  }
}
