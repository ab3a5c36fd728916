// SPDX-License-Identifier: Apache-2.0
#include "bench/graphs/runs.hpp"

#include "apps/graph/bfs.hpp"
#include "apps/graph/cc.hpp"
#include "apps/graph/cpu_fast/bfs.hpp"
#include "apps/graph/cpu_fast/cc.hpp"
#include "apps/graph/cpu_fast/pagerank.hpp"
#include "apps/graph/cpu_fast/sssp.hpp"
#include "apps/graph/gpu/graph_view.hpp"
#include "apps/graph/pagerank.hpp"
#include "apps/graph/sssp.hpp"

#include <bam/error.hpp>

#include <chrono>
#include <cmath>

namespace bam::bench {

namespace gk = graph::gpu;

const char* to_string(algorithm a) {
  switch (a) {
    case algorithm::bfs: return "bfs";
    case algorithm::cc: return "cc";
    case algorithm::pagerank: return "pagerank";
    case algorithm::sssp: return "sssp";
  }
  return "?";
}

algorithm parse_algorithm(std::string_view name) {
  for (const algorithm a : {algorithm::bfs, algorithm::cc, algorithm::pagerank, algorithm::sssp}) {
    if (name == to_string(a)) return a;
  }
  throw invalid_argument("unknown algorithm '" + std::string(name) + "' (known: bfs, cc, pagerank, sssp)");
}

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

/// "" when equal, else where the first difference is.
template <class A, class B>
std::string first_difference(const std::vector<A>& ours, const std::vector<B>& expected, const char* what) {
  if (ours.size() != expected.size()) {
    return std::string(what) + ": " + std::to_string(ours.size()) + " values, expected " +
           std::to_string(expected.size());
  }
  for (std::size_t v = 0; v < ours.size(); ++v) {
    if (ours[v] != static_cast<A>(expected[v])) {
      return std::string(what) + " of vertex " + std::to_string(v) + " is " + std::to_string(ours[v]) +
             ", expected " + std::to_string(expected[v]);
    }
  }
  return {};
}

template <class A, class B>
std::string first_score_difference(const std::vector<A>& ours, const std::vector<B>& expected) {
  if (ours.size() != expected.size()) return "PageRank: wrong number of scores";
  for (std::size_t v = 0; v < ours.size(); ++v) {
    const double a = double(ours[v]), b = double(expected[v]);
    if (!(std::fabs(a - b) <= pagerank_tolerance * b)) {
      return "PageRank score of vertex " + std::to_string(v) + " is " + std::to_string(a) + ", expected " +
             std::to_string(b);
    }
  }
  return {};
}

measurement verdict(measurement m, std::string mismatch) {
  m.verified = mismatch.empty();
  m.mismatch = std::move(mismatch);
  return m;
}

}  // namespace

measurement run_cpu(const graph::csr_view<std::uint32_t>& g, algorithm a,
                    graph::cpu_fast::thread_team& team, truth& t, bool check_reference) {
  measurement m;
  std::string mismatch;
  switch (a) {
    case algorithm::bfs: {
      t.depth.clear();
      for (const std::uint32_t s : t.sources) {
        const auto start = clock_type::now();
        t.depth.push_back(graph::cpu_fast::bfs(g, s, team));
        m.ms += ms_since(start) / double(t.sources.size());
        if (check_reference && mismatch.empty()) {
          mismatch = first_difference(t.depth.back(), graph::bfs_depths(g, s), "BFS depth");
        }
      }
      break;
    }
    case algorithm::cc: {
      const auto start = clock_type::now();
      t.component = graph::cpu_fast::connected_components(g, team);
      m.ms = ms_since(start);
      if (check_reference) mismatch = first_difference(t.component, graph::connected_components(g), "component");
      break;
    }
    case algorithm::pagerank: {
      const graph::pagerank_options twenty{.tolerance = 0, .max_iterations = 20};
      const auto start = clock_type::now();
      t.scores = graph::cpu_fast::pagerank(g, team, twenty).scores;
      m.ms = ms_since(start);
      if (check_reference) mismatch = first_score_difference(t.scores, graph::pagerank(g, twenty).scores);
      break;
    }
    case algorithm::sssp: {
      const auto start = clock_type::now();
      t.distance = graph::cpu_fast::sssp(g, t.sources.at(0), team);
      m.ms = ms_since(start);
      if (check_reference) {
        mismatch = first_difference(t.distance, graph::sssp_distances(g, t.sources.at(0)), "SSSP distance");
      }
      break;
    }
  }
  return verdict(m, std::move(mismatch));
}

template <class View>
measurement run_gpu(const View& g, algorithm a, const truth& t, const gk::run_options& options) {
  measurement m;
  std::string mismatch;
  switch (a) {
    case algorithm::bfs: {
      gk::bfs_options o;
      static_cast<gk::run_options&>(o) = options;
      for (std::size_t i = 0; i < t.sources.size(); ++i) {
        const gk::bfs_result r = gk::run_bfs(g, t.sources[i], o);
        m.ms += r.seconds * 1e3 / double(t.sources.size());
        m.edges += r.edges_examined / t.sources.size();
        if (mismatch.empty()) mismatch = first_difference(r.depth, t.depth.at(i), "BFS depth");
      }
      break;
    }
    case algorithm::cc: {
      const auto r = gk::run_cc(g, options);
      m.ms = r.seconds * 1e3;
      m.edges = r.edges_examined;
      mismatch = first_difference(r.component, t.component, "component");
      break;
    }
    case algorithm::pagerank: {
      gk::pagerank_options o;
      static_cast<gk::run_options&>(o) = options;
      o.iterations = 20;
      o.tolerance = 0;
      const gk::pagerank_run r = gk::run_pagerank(g, o);
      m.ms = r.seconds * 1e3;
      m.edges = r.edges_examined;
      mismatch = r.iterations != 20 ? "PageRank ran " + std::to_string(r.iterations) + " iterations, not 20"
                                    : first_score_difference(r.scores, t.scores);
      break;
    }
    case algorithm::sssp: {
      gk::sssp_options o;
      static_cast<gk::run_options&>(o) = options;
      const gk::sssp_result r = gk::run_sssp(g, t.sources.at(0), o);
      m.ms = r.seconds * 1e3;
      m.edges = r.edges_examined;
      mismatch = first_difference(r.distance, t.distance, "SSSP distance");
      break;
    }
  }
  return verdict(m, std::move(mismatch));
}

template measurement run_gpu(const gk::cached_graph_view<std::uint32_t>&, algorithm, const truth&,
                             const gk::run_options&);
template measurement run_gpu(const gk::pointer_graph_view<std::uint32_t>&, algorithm, const truth&,
                             const gk::run_options&);

}  // namespace bam::bench
