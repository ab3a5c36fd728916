// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the graph-layer tests: scratch folders, in-memory edge sources and a naive
// model of the cleaned graph to compare the builder against.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "apps/graph/csr_format.hpp"
#include "apps/graph/csr_view.hpp"
#include "apps/graph/edge_list.hpp"
#include "apps/graph/edge_source.hpp"
#include "apps/graph/error.hpp"
#include "apps/graph/gap_generator.hpp"
#include "apps/graph/graph_builder.hpp"

namespace bam::graph::test {

/// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class scratch_dir {
 public:
  scratch_dir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("bam_graph_test_" + std::to_string(rd()) + "_" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const {
    return path_ / name;
  }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::vector<char> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Decompresses a .gz file from tests/apps/data into `out`.
inline void gunzip(const std::filesystem::path& gz, const std::filesystem::path& out) {
  gzFile in = gzopen(gz.c_str(), "rb");
  ASSERT_NE(in, nullptr) << "cannot open " << gz;
  std::ofstream dst(out, std::ios::binary);
  std::vector<char> buffer(1 << 16);
  int n = 0;
  while ((n = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
    dst.write(buffer.data(), n);
  }
  gzclose(in);
  ASSERT_EQ(n, 0) << "cannot decompress " << gz;
}

inline std::filesystem::path data_file(const std::string& name) {
  return std::filesystem::path(BAM_GRAPH_TEST_DATA) / name;
}

/// Edges held in memory, served in chunks of `chunk_edges`.
class vector_source final : public edge_source {
 public:
  vector_source(std::vector<raw_edge> edges, bool weighted, std::uint64_t chunk_edges = 7)
      : edges_(std::move(edges)), weighted_(weighted), chunk_edges_(chunk_edges) {}

  [[nodiscard]] std::string name() const override { return "vector_source"; }
  [[nodiscard]] std::uint64_t num_chunks() const override {
    return (edges_.size() + chunk_edges_ - 1) / chunk_edges_;
  }
  [[nodiscard]] bool has_weights() const override { return weighted_; }
  void read_chunk(std::uint64_t c, std::vector<raw_edge>& out) const override {
    const auto first = edges_.begin() + static_cast<std::ptrdiff_t>(c * chunk_edges_);
    out.assign(first, first + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(
                                  chunk_edges_, edges_.size() - c * chunk_edges_)));
  }
  [[nodiscard]] const std::vector<raw_edge>& edges() const { return edges_; }

 private:
  std::vector<raw_edge> edges_;
  bool weighted_;
  std::uint64_t chunk_edges_;
};

/// Builds GAP's symmetrized graph (kind, scale, degree) at `path`, as `bam-graph generate` does.
inline csr_header build_gap(gap_kind kind, int scale, int degree, const std::filesystem::path& path,
                            bool weighted = false) {
  build_options options;
  options.symmetrize = true;
  options.weights = weighted ? weight_policy::gap : weight_policy::none;
  return build_csr_file(gap_generator(kind, scale, degree), path, options).header;
}

/// Every edge of a source, in order.
inline std::vector<raw_edge> all_edges(const edge_source& source) {
  std::vector<raw_edge> all;
  std::vector<raw_edge> chunk;
  for (std::uint64_t c = 0; c < source.num_chunks(); ++c) {
    source.read_chunk(c, chunk);
    all.insert(all.end(), chunk.begin(), chunk.end());
  }
  return all;
}

/// The cleaned graph GAP would build, computed the obvious way: adjacency[u][v] = min weight.
using adjacency_model = std::map<std::uint64_t, std::map<std::uint64_t, weight_t>>;

inline adjacency_model model_of(const std::vector<raw_edge>& edges, bool symmetric) {
  adjacency_model model;
  auto add = [&model](std::uint64_t u, std::uint64_t v, weight_t w) {
    if (u == v) return;
    auto [it, inserted] = model[u].try_emplace(v, w);
    if (!inserted) it->second = std::min(it->second, w);
  };
  for (const raw_edge& e : edges) {
    add(e.u, e.v, e.w);
    if (symmetric) add(e.v, e.u, e.w);
  }
  return model;
}

/// The same shape read back from a CSR view (weights 0 when unweighted).
template <class Id>
adjacency_model model_of(const csr_view<Id>& g) {
  adjacency_model model;
  for (std::uint64_t u = 0; u < g.num_vertices(); ++u) {
    const auto nbrs = g.neighbors_of(u);
    for (std::size_t i = 0; i < nbrs.size(); ++i) {
      model[u][nbrs[i]] = g.weighted ? g.weights_of(u)[i] : 0;
    }
  }
  return model;
}

/// One graph the algorithm tests run on: a source of raw edges, symmetrized or not.
struct graph_case {
  std::string name;
  std::function<std::unique_ptr<edge_source>(const scratch_dir&)> make_source;
  bool symmetrize;
};

inline void PrintTo(const graph_case& c, std::ostream* os) { *os << c.name; }

/// A real network from data/NAME.el.gz, unpacked into `dir`.
inline std::unique_ptr<edge_source> real_graph(const scratch_dir& dir, const std::string& name) {
  const auto el = dir / (name + ".el");
  gunzip(data_file(name + ".el.gz"), el);
  return std::make_unique<edge_list_source>(el);
}

/// Generated GAP graphs and real ones, undirected and directed.
inline auto algorithm_graphs() {
  return ::testing::Values(
      graph_case{"gap_kron_g12_k16",
                 [](const scratch_dir&) {
                   return std::make_unique<gap_generator>(gap_kind::kron, 12, 16);
                 },
                 true},
      graph_case{"gap_urand_u12_k8",
                 [](const scratch_dir&) {
                   return std::make_unique<gap_generator>(gap_kind::urand, 12, 8);
                 },
                 true},
      graph_case{"email_Enron_undirected",
                 [](const scratch_dir& d) { return real_graph(d, "email-Enron"); }, true},
      graph_case{"pgp_strong_2009_directed",
                 [](const scratch_dir& d) { return real_graph(d, "pgp-strong-2009"); }, false});
}

/// Test names for algorithm_graphs().
inline std::string graph_case_name(const ::testing::TestParamInfo<graph_case>& info) {
  return info.param.name;
}

}  // namespace bam::graph::test
