// SPDX-License-Identifier: Apache-2.0
// A benchmark's report: rows printed as a table and written, with the device, the date, the
// reproducing command and a `headline` object, to bench/results/<bench>-<gpu>-<yyyymmdd>.json.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace bam::bench {

class report {
 public:
  /// @param bench benchmark name; @param argc/argv the command line, recorded for reproduction
  report(std::string bench, int argc, char** argv);

  /// Device description recorded in the JSON (e.g. from cudaGetDeviceProperties).
  void set_device(const std::string& name, nlohmann::json details);
  /// One measurement; every row should carry the same keys within a `table`.
  void add_row(const std::string& table, nlohmann::json row);
  nlohmann::json& headline() { return doc_["headline"]; }
  nlohmann::json& notes() { return doc_["notes"]; }

  /// Prints every table (columns in first-row key order) and the headline to stdout.
  void print() const;
  /// Writes the JSON into `dir` and returns the file's path.
  std::string write(const std::string& dir) const;

 private:
  std::string bench_;
  std::string device_slug_ = "cpu";
  nlohmann::json doc_;
  std::vector<std::string> table_order_;
};

}  // namespace bam::bench
