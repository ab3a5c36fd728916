// SPDX-License-Identifier: Apache-2.0
#include "bench/graphs/row_store.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <fstream>
#include <utility>
#include <vector>

namespace bam::bench {

namespace {

bool same_key(const nlohmann::json& a, const nlohmann::json& b) {
  for (const char* k : {"graph", "algorithm", "system"}) {
    if (a.value(k, "") != b.value(k, "")) return false;
  }
  return true;
}

/// "optane-p5800x:4" -> "optane_p5800x_x4": a headline key part.
std::string key_part(std::string s) {
  for (char& c : s) {
    if (c == '-' || c == ' ') c = '_';
  }
  if (const auto colon = s.find(':'); colon != std::string::npos) s.replace(colon, 1, "_x");
  return s;
}

}  // namespace

row_store::row_store(std::filesystem::path work_dir) : path_(std::move(work_dir) / "graphs-rows.json") {
  doc_ = {{"tables", nlohmann::json::object()}, {"commands", nlohmann::json::array()}};
  if (!std::filesystem::exists(path_)) return;
  std::ifstream f(path_);
  try {
    doc_ = nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    throw error(path_.string() + ": not a row store (" + e.what() + "); delete it to start afresh");
  }
  if (!doc_.contains("tables") || !doc_.contains("commands")) {
    throw error(path_.string() + ": not a row store; delete it to start afresh");
  }
}

void row_store::add(const std::string& table, const nlohmann::json& row) {
  auto& rows = doc_["tables"][table];
  if (rows.is_null()) rows = nlohmann::json::array();
  for (auto& r : rows) {
    if (same_key(r, row)) {
      r = row;
      return;
    }
  }
  rows.push_back(row);
}

void row_store::add_command(const std::string& command) { doc_["commands"].push_back(command); }

void row_store::save() const {
  std::ofstream f(path_);
  if (!(f << doc_.dump(1) << "\n")) throw system_error("cannot write " + path_.string());
}

void row_store::fill(report& rep) const {
  for (auto it = doc_["tables"].begin(); it != doc_["tables"].end(); ++it) {
    for (const auto& r : it.value()) rep.add_row(it.key(), r);
  }
  rep.notes()["commands"] = doc_["commands"];
  rep.headline() = headline();
}

nlohmann::json row_store::headline() const {
  nlohmann::json h = nlohmann::json::object();
  nlohmann::json unverified = nlohmann::json::array();
  const auto ms_of = [&](const std::string& table, const std::string& graph, const std::string& algo,
                         const std::string& system) -> double {
    if (!doc_["tables"].contains(table)) return 0;
    for (const auto& r : doc_["tables"][table]) {
      if (r["graph"] == graph && r["algorithm"] == algo && r["system"] == system) {
        if (!r.value("verified", false)) {
          unverified.push_back(table + "/" + graph + "/" + algo + "/" + system);
          return 0;
        }
        return r.value("ms", 0.0);
      }
    }
    return 0;
  };
  if (!doc_["tables"].contains("in-memory")) return h;
  std::vector<std::pair<std::string, std::string>> seen;  // (graph, algorithm) in row order
  for (const auto& r : doc_["tables"]["in-memory"]) {
    const std::pair<std::string, std::string> ga{r["graph"], r["algorithm"]};
    if (std::find(seen.begin(), seen.end(), ga) == seen.end()) seen.push_back(ga);
  }
  for (const auto& [graph, algo] : seen) {
    const std::string key = graph + "_" + algo + "_ms";
    const double bam = ms_of("in-memory", graph, algo, "bam");
    if (bam > 0) h[key] = bam;
    for (const char* peer : {"vram", "zero-copy", "uvm", "cpu"}) {
      const double p = ms_of("in-memory", graph, algo, peer);
      if (p <= 0) continue;
      h[key + "_" + key_part(peer)] = p;
      if (bam <= 0) continue;
      const std::string ratio = graph + "_" + algo + "_" + key_part(peer);
      if (std::string(peer) == "vram") h[graph + "_" + algo + "_bam_over_vram"] = bam / p;
      else h[ratio + "_over_bam"] = p / bam;
    }
    const double resident = ms_of("in-memory", graph, algo, "resident");
    const double vram = ms_of("in-memory", graph, algo, "vram");
    if (resident > 0) h[key + "_resident"] = resident;
    if (resident > 0 && vram > 0) h[graph + "_" + algo + "_resident_over_vram"] = resident / vram;
    if (doc_["tables"].contains("drives")) {
      for (const auto& r : doc_["tables"]["drives"]) {
        if (r["graph"] != graph || r["algorithm"] != algo) continue;
        const double d = ms_of("drives", graph, algo, r["system"]);
        if (d > 0) h[key + "_" + key_part(r["system"])] = d;
      }
    }
  }
  double max_amplification = 0;
  for (const auto& r : doc_["tables"]["in-memory"])
    if (r["system"] == "bam" && r.value("verified", false))
      max_amplification = std::max(max_amplification, r.value("io_amplification", 0.0));
  if (max_amplification > 0) h["max_io_amplification"] = max_amplification;
  h["targets"] = "resident (cache = all the data, warm): resident_over_vram <= 1.5 (PageRank 1.25); "
                 "cache = 1/8 of the edge data: max_io_amplification <= 2; BFS and CC: zero_copy_over_bam >= 2 and cpu_over_bam > 1; "
                 "PageRank: zero_copy_over_bam > 1 and cpu_over_bam > 1; all: bam_over_vram <= 2 and "
                 "uvm_over_bam >= 10";
  if (!unverified.empty()) h["unverified"] = unverified;
  return h;
}

}  // namespace bam::bench
