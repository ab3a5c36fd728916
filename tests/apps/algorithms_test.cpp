// SPDX-License-Identifier: Apache-2.0
// The reference algorithms agree with the Boost Graph Library on generated and real graphs:
// BFS depths, SSSP distances and component partitions exactly, PageRank within a stated bound.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/page_rank.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "apps/graph/bfs.hpp"
#include "apps/graph/cc.hpp"
#include "apps/graph/csr_file.hpp"
#include "apps/graph/csr_writer.hpp"
#include "apps/graph/edge_list.hpp"
#include "apps/graph/gap_generator.hpp"
#include "apps/graph/gap_random.hpp"
#include "apps/graph/graph_builder.hpp"
#include "apps/graph/pagerank.hpp"
#include "apps/graph/source_picker.hpp"
#include "apps/graph/sssp.hpp"
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

using weight_property = boost::property<boost::edge_weight_t, std::uint64_t>;
template <class Direction>
using bgl_graph =
    boost::adjacency_list<boost::vecS, boost::vecS, Direction, boost::no_property, weight_property>;

/// One test graph built by our pipeline, and its raw edges (with GAP's weights) for Boost.
class AgreesWithBoost : public ::testing::TestWithParam<test::graph_case> {
 protected:
  void SetUp() override {
    source_ = GetParam().make_source(dir_);
    build_options options;
    options.symmetrize = GetParam().symmetrize;
    options.weights = weight_policy::gap;
    build_csr_file(*source_, dir_ / "g.bcsr", options);
    file_ = std::make_unique<csr_file>(csr_file::open(dir_ / "g.bcsr"));
    raw_ = test::all_edges(*source_);
    gap::weight_sequence weights(0);
    for (raw_edge& e : raw_) e.w = weights.next();
  }

  [[nodiscard]] csr_view<std::uint32_t> g() const { return file_->view<std::uint32_t>(); }

  /// Boost graph of the raw edges (duplicates, self-loops and all).
  template <class Direction>
  bgl_graph<Direction> raw_bgl() const {
    bgl_graph<Direction> b(g().num_vertices());
    for (const raw_edge& e : raw_) boost::add_edge(e.u, e.v, weight_property(e.w), b);
    return b;
  }

  /// GAP's first sources for this graph.
  [[nodiscard]] std::vector<std::uint32_t> sources(int count) const {
    source_picker picker(g());
    std::vector<std::uint32_t> picked;
    for (int i = 0; i < count; ++i) picked.push_back(picker.next());
    return picked;
  }

  template <class Graph>
  static std::vector<std::uint32_t> boost_bfs(const Graph& b, std::uint32_t s) {
    std::vector<std::uint32_t> depth(boost::num_vertices(b), bfs_unreached);
    depth[s] = 0;
    boost::breadth_first_search(
        b, s,
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(
            boost::make_iterator_property_map(depth.begin(), boost::get(boost::vertex_index, b)),
            boost::on_tree_edge()))));
    return depth;
  }

  template <class Graph>
  static std::vector<std::uint64_t> boost_sssp(const Graph& b, std::uint32_t s) {
    std::vector<std::uint64_t> dist(boost::num_vertices(b));
    boost::dijkstra_shortest_paths(b, s,
                                   boost::distance_map(boost::make_iterator_property_map(
                                       dist.begin(), boost::get(boost::vertex_index, b))));
    return dist;
  }

  test::scratch_dir dir_;
  std::unique_ptr<edge_source> source_;
  std::unique_ptr<csr_file> file_;
  std::vector<raw_edge> raw_;
};

TEST_P(AgreesWithBoost, BfsDepths) {
  for (const std::uint32_t s : sources(4)) {
    const auto ours = bfs_depths(g(), s, 2);
    const auto theirs = GetParam().symmetrize ? boost_bfs(raw_bgl<boost::undirectedS>(), s)
                                              : boost_bfs(raw_bgl<boost::directedS>(), s);
    EXPECT_EQ(ours, theirs) << "source " << s;
    EXPECT_EQ(bfs_depths(g(), s, 1), ours);
  }
}

TEST_P(AgreesWithBoost, SsspDistances) {
  for (const std::uint32_t s : sources(3)) {
    const auto ours = sssp_distances(g(), s, 2);
    auto theirs = GetParam().symmetrize ? boost_sssp(raw_bgl<boost::undirectedS>(), s)
                                        : boost_sssp(raw_bgl<boost::directedS>(), s);
    for (auto& d : theirs) {
      if (d == std::numeric_limits<std::uint64_t>::max()) d = sssp_unreached;
    }
    EXPECT_EQ(ours, theirs) << "source " << s;
    EXPECT_EQ(sssp_distances(g(), s, 1), ours);
  }
}

TEST_P(AgreesWithBoost, ComponentPartition) {
  // Boost numbers components 0, 1, ...; ours are named by their smallest vertex. Same partition
  // means: renaming Boost's by their smallest vertex gives our labels.
  const auto b = raw_bgl<boost::undirectedS>();
  std::vector<std::uint64_t> theirs(boost::num_vertices(b));
  const auto n_components = boost::connected_components(b, theirs.data());
  std::vector<std::uint64_t> smallest(n_components, std::numeric_limits<std::uint64_t>::max());
  for (std::uint64_t v = 0; v < theirs.size(); ++v) {
    smallest[theirs[v]] = std::min(smallest[theirs[v]], v);
  }
  const auto ours = connected_components(g(), 2);
  ASSERT_EQ(ours.size(), theirs.size());
  for (std::uint64_t v = 0; v < ours.size(); ++v) {
    ASSERT_EQ(ours[v], smallest[theirs[v]]) << "vertex " << v;
  }
  EXPECT_EQ(connected_components(g(), 1), ours);
}

TEST_P(AgreesWithBoost, PageRank) {
  // Boost iterates r = (1 - d) + d * sum, whose fixed point is n times ours; both run to
  // convergence here, so they must agree to 1e-9 relative.
  const csr_view<std::uint32_t> view = g();
  const std::uint64_t n = view.num_vertices();
  bgl_graph<boost::bidirectionalS> b(n);
  for (std::uint64_t u = 0; u < n; ++u) {
    for (const std::uint32_t v : view.neighbors_of(u)) boost::add_edge(u, v, b);
  }
  std::vector<double> theirs(n);
  boost::graph::page_rank(
      b, boost::make_iterator_property_map(theirs.begin(), boost::get(boost::vertex_index, b)),
      boost::graph::n_iterations(300));

  const pagerank_result converged = pagerank(view, {.tolerance = 1e-14, .max_iterations = 1000}, 2);
  EXPECT_LT(converged.change, 1e-14);
  for (std::uint64_t v = 0; v < n; ++v) {
    const double scaled = converged.scores[v] * static_cast<double>(n);
    ASSERT_NEAR(scaled, theirs[v], 1e-9 * std::max(1.0, theirs[v])) << "vertex " << v;
  }

  // GAP's defaults (tolerance 1e-4, at most 20 iterations) stop early. The iteration contracts
  // by d in L1, so the distance to the fixed point is at most d / (1 - d) times the last change.
  const pagerank_result gap_run = pagerank(view, {}, 2);
  double distance = 0;
  for (std::uint64_t v = 0; v < n; ++v) {
    distance += std::fabs(gap_run.scores[v] - theirs[v] / static_cast<double>(n));
  }
  EXPECT_LE(distance, 0.85 / 0.15 * gap_run.change + 1e-12);
  EXPECT_LE(gap_run.iterations, 20);
  EXPECT_EQ(pagerank(view, {}, 1).scores, gap_run.scores);
}

INSTANTIATE_TEST_SUITE_P(Graphs, AgreesWithBoost, test::algorithm_graphs(), test::graph_case_name);

TEST(SourcePicker, FollowsGapsDrawsAndSkipsIsolatedVertices) {
  test::scratch_dir dir;
  test::build_gap(gap_kind::kron, 10, 4, dir / "g.bcsr");
  const csr_file file = csr_file::open(dir / "g.bcsr");
  const csr_view<std::uint32_t> g = file.view<std::uint32_t>();
  ASSERT_EQ(g.num_vertices(), 1023u);  // not a power of two: uni_dist's cutoff is in play

  std::mt19937 engine(static_cast<std::uint32_t>(gap::seed));
  const gap::uni_dist<std::uint32_t> dist(1022);
  source_picker<std::uint32_t> picker(g);
  int skipped = 0;
  for (int i = 0; i < 50; ++i) {
    std::uint32_t expected = dist(engine);
    for (; g.degree(expected) == 0; expected = dist(engine)) ++skipped;
    ASSERT_EQ(picker.next(), expected);
  }
  EXPECT_GT(skipped, 0);  // a kron graph has isolated vertices, and GAP skips them

  csr_writer writer(dir / "empty.bcsr", {.num_vertices = 3});
  const std::vector<std::uint64_t> degrees{0, 0, 0};
  writer.append<std::uint32_t>(degrees, {}, {});
  writer.finish();
  const csr_file empty = csr_file::open(dir / "empty.bcsr");
  EXPECT_THROW(source_picker<std::uint32_t>{empty.view<std::uint32_t>()}, graph_error);
}

TEST(Algorithms, RefuseBadArguments) {
  test::scratch_dir dir;
  test::build_gap(gap_kind::urand, 6, 2, dir / "u.bcsr");
  const csr_file file = csr_file::open(dir / "u.bcsr");
  EXPECT_THROW((void)bfs_depths(file.view<std::uint32_t>(), 64), graph_error);
  EXPECT_THROW((void)sssp_distances(file.view<std::uint32_t>(), 0), graph_error);  // unweighted
}

}  // namespace
}  // namespace bam::graph
