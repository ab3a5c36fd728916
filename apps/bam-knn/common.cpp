// SPDX-License-Identifier: Apache-2.0
#include "apps/bam-knn/common.hpp"

#include "apps/vector/formats.hpp"
#include "apps/vector/generator.hpp"

#include <bam/error.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace bam::knn {

namespace {
vec::cluster_options generator(const base_options& b, std::uint64_t rows) {
  return {rows, b.dim, b.clusters, b.seed, b.spread, b.skew};
}
}  // namespace

collection open_base(const base_options& b) {
  collection c;
  if (b.generate > 0) {
    c.source = std::make_unique<vec::clustered_source>(generator(b, b.generate));
    return c;
  }
  BAM_EXPECTS(!b.file.empty(), "no base collection: give --base FILE or --generate ROWS");
  c.loaded = std::make_unique<vec::matrix<float>>(vec::read_vectors(b.file));
  c.source = std::make_unique<vec::matrix_source>(*c.loaded, b.file);
  return c;
}

vec::matrix<float> open_queries(const std::string& file, std::uint64_t generate, const base_options& b) {
  if (generate > 0) return vec::read_all(vec::clustered_source(generator(b, generate), 1));
  BAM_EXPECTS(!file.empty(), "no queries: give --queries FILE or --generate-queries ROWS");
  return vec::read_vectors(file);
}

vec::progress_fn stderr_progress(const std::string& command) {
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  return [command, last](const std::string& phase, std::uint64_t done, std::uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - *last < std::chrono::milliseconds(500)) return;
    *last = now;
    std::fprintf(stderr, "\r[%s] %s %llu/%llu (%.0f%%)%s", command.c_str(), phase.c_str(), (unsigned long long)done,
                 (unsigned long long)total, total ? 100.0 * double(done) / double(total) : 100.0,
                 done >= total ? "\n" : "   ");
    std::fflush(stderr);
  };
}

void emit_json(const nlohmann::json& doc, const std::string& path) {
  std::cout << doc.dump(2) << "\n";
  if (path.empty()) return;
  std::ofstream out(path);
  out << doc.dump(2) << "\n";
  if (!out) throw bam::system_error(path + ": cannot write the JSON summary");
}

}  // namespace bam::knn
