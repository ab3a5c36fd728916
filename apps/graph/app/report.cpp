// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/app/report.hpp"

#include "apps/common/python_script.hpp"

#include <bam/error.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

namespace bam::graph::app {

namespace {
/// Exit status plot_profile.py uses when matplotlib is missing.
constexpr int plot_skipped = 3;

nlohmann::json counters(const cache::cache_stats& c) {
  return {{"accesses", c.accesses}, {"hits", c.hits},           {"misses", c.misses},
          {"coalesced", c.coalesced}, {"evictions", c.evictions}, {"bytes_read", c.bytes_read}};
}

cache::cache_stats minus(const cache::cache_stats& a, const cache::cache_stats& b) {
  cache::cache_stats d;
  d.accesses = a.accesses - b.accesses;
  d.hits = a.hits - b.hits;
  d.misses = a.misses - b.misses;
  d.coalesced = a.coalesced - b.coalesced;
  d.failures = a.failures - b.failures;
  d.evictions = a.evictions - b.evictions;
  d.write_backs = a.write_backs - b.write_backs;
  d.bytes_read = a.bytes_read - b.bytes_read;
  d.bytes_written = a.bytes_written - b.bytes_written;
  return d;
}
}  // namespace

trial_recorder::trial_recorder(std::string label, page_cache* cache, bool quiet)
    : label_(std::move(label)), cache_(cache), quiet_(quiet) {}

void trial_recorder::step(const gpu::iteration_info& info) {
  nlohmann::json row = {{"iteration", info.iteration}, {"phase", info.phase}, {"frontier", info.frontier},
                        {"edges", info.edges},         {"seconds", info.seconds}};
  if (cache_ != nullptr) {
    cache_->check();  // fail fast on an NVMe error or timeout
    const cache::cache_stats now = cache_->total_stats().counts;
    row["cache"] = counters(minus(now, last_));
    last_ = now;
  }
  profile_.push_back(row);
  const auto t = std::chrono::steady_clock::now();
  if (!quiet_ && t - last_print_ > std::chrono::milliseconds(500)) {
    last_print_ = t;
    std::fprintf(stderr, "[%s] step %u (%s): %llu active vertices, %llu edges, %.3f s\n", label_.c_str(),
                 info.iteration, info.phase.c_str(), (unsigned long long)info.frontier,
                 (unsigned long long)info.edges, info.seconds);
  }
}

run_report::run_report(std::string command, const csr_file& file, std::string backend, bool gpu, page_cache* cache,
                       std::uint64_t cache_bytes, bool weights)
    : command_(std::move(command)), cache_(cache),
      entry_bytes_(file.header().id_bytes + (weights ? file.header().weight_bytes : 0)) {
  const csr_header& h = file.header();
  doc_ = {{"command", command_},
          {"graph", file.path().string()},
          {"vertices", h.num_vertices},
          {"edges", h.num_edges},
          {"id_bytes", h.id_bytes},
          {"symmetric", h.symmetric()},
          {"device", gpu ? "gpu" : "cpu"},
          {"backend", backend},
          {"edge_bytes", h.num_edges * entry_bytes_},
          {"cache_bytes", cache ? nlohmann::json(cache_bytes) : nlohmann::json(nullptr)},
          {"page_bytes", cache ? nlohmann::json(cache->page_bytes()) : nlohmann::json(nullptr)},
          {"trials", nlohmann::json::array()}};
}

trial_recorder run_report::start_trial(std::size_t index, std::size_t count, bool quiet) {
  if (cache_ != nullptr) cache_->reset_stats();
  return trial_recorder(command_ + " trial " + std::to_string(index + 1) + "/" + std::to_string(count), cache_,
                        quiet);
}

void run_report::finish_trial(trial_recorder trial, std::uint64_t source, bool uses_source, const trial_outcome& out,
                              bool verified, const std::string& verdict) {
  nlohmann::json t = {{"seconds", out.seconds},
                      {"edges_examined", out.edges_examined},
                      {"edges_traversed", out.edges_traversed},
                      {"teps", out.seconds > 0 ? double(out.edges_traversed) / out.seconds : 0.0},
                      {"bytes_needed", out.edges_needed * entry_bytes_}};
  if (uses_source) t["source"] = source;
  if (cache_ != nullptr) {
    const array_stats s = cache_->total_stats();
    t["hit_rate"] = s.hit_rate();
    t["bytes_read"] = s.counts.bytes_read;
    t["io_amplification"] =
        out.edges_needed ? double(s.counts.bytes_read) / double(out.edges_needed * entry_bytes_) : 0.0;
  }
  if (verified) t["verified"] = verdict.empty() ? nlohmann::json(true) : nlohmann::json(verdict);
  t.update(out.extra);
  t["profile"] = trial.take_profile();
  doc_["trials"].push_back(std::move(t));
}

std::string run_report::table() const {
  std::string out = fmt::format("{:<6} {:>12} {:>10} {:>10} {:>7} {:>10} {:>8} {}\n", "trial", "source", "ms", "MTEPS",
                                "hit%", "MiB read", "I/O amp", "verified");
  int i = 0;
  for (const auto& t : doc_["trials"]) {
    const bool cached = t.contains("hit_rate");
    out += fmt::format("{:<6} {:>12} {:>10.2f} {:>10.1f} {:>7} {:>10} {:>8} {}\n", ++i,
                       t.contains("source") ? std::to_string(t["source"].get<std::uint64_t>()) : "-",
                       t["seconds"].get<double>() * 1e3, t["teps"].get<double>() / 1e6,
                       cached ? fmt::format("{:.1f}", 100.0 * t["hit_rate"].get<double>()) : "-",
                       cached ? fmt::format("{:.1f}", t["bytes_read"].get<double>() / double(1 << 20)) : "-",
                       cached ? fmt::format("{:.2f}", t["io_amplification"].get<double>()) : "-",
                       !t.contains("verified") ? "-" : t["verified"] == true ? "yes" : "NO");
  }
  return out;
}

void run_report::write_json(const std::string& path) const {
  if (path == "-") {
    std::cout << doc_.dump(2) << "\n";
    return;
  }
  std::ofstream out(path);
  out << doc_.dump(2) << "\n";
  if (!out) throw bam::system_error(path + ": cannot write the JSON summary");
}

void plot_profile(const std::string& json, const std::string& png) {
  const int status = apps::run_python_script("plot_profile.py", {json, png});
  if (status == plot_skipped) return;  // the script said why
  if (status != 0) throw bam::error("plotting failed: " + apps::python_command("plot_profile.py", {json, png}));
}

}  // namespace bam::graph::app
