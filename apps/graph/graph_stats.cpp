// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/graph_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <mutex>

#include "apps/common/parallel.hpp"

namespace bam::graph {
namespace {

double mean_degree(const graph_stats& s) {
  return s.vertices == 0 ? 0.0 : static_cast<double>(s.arcs) / static_cast<double>(s.vertices);
}

std::size_t histogram_bucket(std::uint64_t degree) {
  return static_cast<std::size_t>(std::bit_width(degree));
}

template <class Id>
void scan(const csr_view<Id>& g, graph_stats& s, unsigned threads) {
  constexpr std::uint64_t grain = 1u << 16;
  std::mutex merge;
  s.degree_histogram.assign(65, 0);
  s.min_weight = std::numeric_limits<std::uint64_t>::max();
  double weight_sum = 0;
  apps::parallel_for_ranges(
      g.num_vertices(), grain, threads, [&](std::uint64_t a, std::uint64_t z, unsigned) {
        std::vector<std::uint64_t> histogram(65, 0);
        std::uint64_t max_degree = 0;
        std::uint64_t max_vertex = 0;
        for (std::uint64_t u = a; u < z; ++u) {
          const std::uint64_t d = g.degree(u);
          ++histogram[histogram_bucket(d)];
          if (d > max_degree) {
            max_degree = d;
            max_vertex = u;
          }
        }
        std::uint64_t min_w = std::numeric_limits<std::uint64_t>::max();
        std::uint64_t max_w = 0;
        double sum_w = 0;
        if (g.weighted) {
          for (const weight_t w : g.weights.subspan(g.offsets[a], g.offsets[z] - g.offsets[a])) {
            min_w = std::min<std::uint64_t>(min_w, w);
            max_w = std::max<std::uint64_t>(max_w, w);
            sum_w += w;
          }
        }
        std::lock_guard lock(merge);
        for (std::size_t k = 0; k < histogram.size(); ++k) s.degree_histogram[k] += histogram[k];
        if (max_degree > s.max_degree ||
            (max_degree == s.max_degree && max_vertex < s.max_degree_vertex)) {
          s.max_degree = max_degree;
          s.max_degree_vertex = max_vertex;
        }
        s.min_weight = std::min(s.min_weight, min_w);
        s.max_weight = std::max(s.max_weight, max_w);
        weight_sum += sum_w;
      });
  while (s.degree_histogram.size() > 1 && s.degree_histogram.back() == 0) {
    s.degree_histogram.pop_back();
  }
  s.isolated = s.degree_histogram.empty() ? 0 : s.degree_histogram[0];
  if (!g.weighted || g.num_edges() == 0) {
    s.min_weight = 0;
  } else {
    s.mean_weight = weight_sum / static_cast<double>(g.num_edges());
  }
}

}  // namespace

graph_stats compute_stats(const csr_file& file, unsigned threads) {
  const csr_header& h = file.header();
  graph_stats s;
  s.vertices = h.num_vertices;
  s.arcs = h.num_edges;
  s.symmetric = h.symmetric();
  s.weighted = h.weighted();
  s.id_bytes = h.id_bytes;
  s.file_bytes = h.file_bytes;
  visit_view(file, [&](const auto& g) { scan(g, s, threads); });
  return s;
}

nlohmann::ordered_json to_json(const graph_stats& s) {
  nlohmann::ordered_json j = {
      {"vertices", s.vertices},
      {"arcs", s.arcs},
      {"symmetric", s.symmetric},
      {"weighted", s.weighted},
      {"id_bytes", s.id_bytes},
      {"file_bytes", s.file_bytes},
      {"isolated_vertices", s.isolated},
      {"max_degree", s.max_degree},
      {"max_degree_vertex", s.max_degree_vertex},
      {"mean_degree", mean_degree(s)},
      {"degree_histogram_log2", s.degree_histogram},
  };
  if (s.symmetric) j["undirected_edges"] = s.arcs / 2;
  if (s.weighted) {
    j["min_weight"] = s.min_weight;
    j["max_weight"] = s.max_weight;
    j["mean_weight"] = s.mean_weight;
  }
  return j;
}

std::string to_text(const graph_stats& s) {
  std::string out;
  auto line = [&out](std::string_view name, const std::string& value) {
    out += fmt::format("{:<20}{}\n", fmt::format("{}:", name), value);
  };
  line("vertices", fmt::format("{}", s.vertices));
  if (s.symmetric) {
    line("edges", fmt::format("{} undirected ({} arcs)", s.arcs / 2, s.arcs));
  } else {
    line("edges", fmt::format("{} directed", s.arcs));
  }
  line("ids", fmt::format("{} bytes", s.id_bytes));
  line("file", fmt::format("{} bytes", s.file_bytes));
  line("mean degree", fmt::format("{:.3f}", mean_degree(s)));
  line("max degree", fmt::format("{} (vertex {})", s.max_degree, s.max_degree_vertex));
  line("isolated vertices", fmt::format("{}", s.isolated));
  if (s.weighted) {
    line("weights", fmt::format("{}..{}, mean {:.3f}", s.min_weight, s.max_weight, s.mean_weight));
  } else {
    line("weights", "none");
  }
  out += "degree histogram:\n";
  for (std::size_t k = 0; k < s.degree_histogram.size(); ++k) {
    const std::uint64_t high = k == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k) - 1;
    const std::string range =
        k == 0 ? "0" : fmt::format("{}..{}", std::uint64_t{1} << (k - 1), high);
    out += fmt::format("  {:>24} {}\n", range, s.degree_histogram[k]);
  }
  return out;
}

}  // namespace bam::graph
