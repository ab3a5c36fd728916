// SPDX-License-Identifier: Apache-2.0
#include "bench/common/report.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace bam::bench {

namespace {
std::string today(const char* format) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string cell(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char buf[32];
    const double d = v.get<double>();
    std::snprintf(buf, sizeof buf, (d != 0 && (d < 0.01 && d > -0.01)) ? "%.3g" : "%.3f", d);
    return buf;
  }
  return v.dump();
}
}  // namespace

report::report(std::string bench, int argc, char** argv) : bench_(std::move(bench)) {
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
  doc_["bench"] = bench_;
  doc_["date"] = today("%Y-%m-%d");
  doc_["command"] = cmd;
  doc_["tables"] = nlohmann::json::object();
  doc_["headline"] = nlohmann::json::object();
}

void report::set_device(const std::string& name, nlohmann::json details) {
  doc_["device"] = {{"name", name}, {"details", std::move(details)}};
  device_slug_.clear();
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) device_slug_ += char(std::tolower(static_cast<unsigned char>(c)));
  }
  const std::string vendor = "nvidia";
  if (device_slug_.rfind(vendor, 0) == 0) device_slug_.erase(0, vendor.size());
}

void report::add_row(const std::string& table, nlohmann::json row) {
  if (!doc_["tables"].contains(table)) {
    doc_["tables"][table] = nlohmann::json::array();
    table_order_.push_back(table);
  }
  doc_["tables"][table].push_back(std::move(row));
}

void report::print() const {
  for (const auto& name : table_order_) {
    const auto& rows = doc_["tables"][name];
    std::vector<std::string> keys;
    for (auto it = rows[0].begin(); it != rows[0].end(); ++it) keys.push_back(it.key());
    std::vector<std::size_t> width(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) {
      width[k] = keys[k].size();
      for (const auto& r : rows) width[k] = std::max(width[k], r.contains(keys[k]) ? cell(r[keys[k]]).size() : 1);
    }
    std::printf("\n%s\n", name.c_str());
    for (std::size_t k = 0; k < keys.size(); ++k) std::printf("%s%*s", k ? "  " : "", int(width[k]), keys[k].c_str());
    std::printf("\n");
    for (const auto& r : rows) {
      for (std::size_t k = 0; k < keys.size(); ++k)
        std::printf("%s%*s", k ? "  " : "", int(width[k]), r.contains(keys[k]) ? cell(r[keys[k]]).c_str() : "-");
      std::printf("\n");
    }
  }
  std::printf("\nheadline: %s\n", doc_["headline"].dump().c_str());
}

std::string report::write(const std::string& dir) const {
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + bench_ + "-" + device_slug_ + "-" + today("%Y%m%d") + ".json";
  std::ofstream f(path);
  if (!f) throw system_error("report: cannot write " + path);
  f << doc_.dump(2) << "\n";
  return path;
}

}  // namespace bam::bench
