// SPDX-License-Identifier: Apache-2.0
// Edge lists and Matrix Market files: what is accepted, what it becomes, and how errors read.
#include <gtest/gtest.h>

#include <string>

#include "apps/graph/csr_file.hpp"
#include "apps/graph/edge_list.hpp"
#include "apps/graph/graph_builder.hpp"
#include "apps/graph/matrix_market.hpp"

#include <bam/error.hpp>
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

using test::adjacency_model;

/// Message of the parse_error `fn` throws (fails the test when none is thrown).
template <class Fn>
std::string parse_failure(Fn&& fn) {
  try {
    fn();
  } catch (const parse_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no parse_error";
  return {};
}

adjacency_model build_model(const edge_source& source, const std::filesystem::path& out,
                            build_options options = {}) {
  build_csr_file(source, out, options);
  return test::model_of(csr_file::open(out).view<std::uint32_t>());
}

TEST(EdgeList, CommentsBlankLinesAndCrlf) {
  test::scratch_dir dir;
  test::write_text(dir / "g.el", "# a comment\n% another\n\n0 1\r\n  2\t0 \n1 2\n1 2\n3 3\n0 1");
  const edge_list_source source(dir / "g.el", 6);  // tiny chunks: lines split across them
  EXPECT_FALSE(source.has_weights());
  EXPECT_GT(source.num_chunks(), 3u);
  EXPECT_EQ(test::all_edges(source).size(), 6u);
  // Directed, duplicates merged, self-loop dropped; vertex 3 only had a self-loop.
  const adjacency_model g = build_model(source, dir / "g.bcsr");
  EXPECT_EQ(g, (adjacency_model{{0, {{1, 0}}}, {1, {{2, 0}}}, {2, {{0, 0}}}}));
  EXPECT_EQ(csr_file::open(dir / "g.bcsr").header().num_vertices, 4u);
}

TEST(EdgeList, WeightsAndSymmetrize) {
  test::scratch_dir dir;
  test::write_text(dir / "w.el", "0 1 7\n1 0 3\n1 2 4000000000\n");
  const edge_list_source source(dir / "w.el");
  EXPECT_TRUE(source.has_weights());
  build_options options;
  options.symmetrize = true;
  const adjacency_model g = build_model(source, dir / "w.bcsr", options);
  EXPECT_EQ(g, (adjacency_model{
                   {0, {{1, 3}}}, {1, {{0, 3}, {2, 4000000000u}}}, {2, {{1, 4000000000u}}}}));
  EXPECT_TRUE(csr_file::open(dir / "w.bcsr").header().symmetric());
  options.weights = weight_policy::none;
  build_csr_file(source, dir / "u.bcsr", options);
  EXPECT_FALSE(csr_file::open(dir / "u.bcsr").header().weighted());
}

TEST(EdgeList, ErrorsNameFileAndLine) {
  test::scratch_dir dir;
  const auto path = dir / "bad.el";
  auto read_all = [&] { (void)test::all_edges(edge_list_source(path, 4)); };

  test::write_text(path, "# header\n0 1\n2\n");
  EXPECT_EQ(parse_failure(read_all),
            path.string() + ":3: expected 2 fields like the first edge line, found 1");
  test::write_text(path, "0 1\n2 x\n");
  EXPECT_EQ(
      parse_failure(read_all),
      path.string() + ":2: vertex ids must be integers in 0..18446744073709551614, got \"2 x\"");
  test::write_text(path, "0 1\n-1 2\n");
  EXPECT_NE(parse_failure(read_all).find(":2: vertex ids must be integers"), std::string::npos);
  test::write_text(path, "0 1 5\n2 3 4294967296\n");
  EXPECT_EQ(parse_failure(read_all),
            path.string() + ":2: weight must be an integer in 0..4294967295, got \"4294967296\"");
  test::write_text(path, "\n\n0 1 2 3\n");
  EXPECT_NE(parse_failure([&] { edge_list_source s(path); }).find(":3: an edge line has 2 fields"),
            std::string::npos);
  EXPECT_THROW(edge_list_source(dir / "missing.el"), bam::system_error);  // apps::mapped_file
}

TEST(MatrixMarket, SymmetricPatternKeepsDeclaredVertices) {
  test::scratch_dir dir;
  test::write_text(dir / "g.mtx",
                   "%%MatrixMarket matrix coordinate pattern symmetric\n"
                   "% comment\n"
                   "5 5 4\n"
                   "2 1\n3 1\n3 3\n4 2\n");
  const matrix_market_source source(dir / "g.mtx");
  EXPECT_TRUE(source.implies_reverse());
  EXPECT_FALSE(source.has_weights());
  const adjacency_model g = build_model(source, dir / "g.bcsr");
  EXPECT_EQ(g, (adjacency_model{
                   {0, {{1, 0}, {2, 0}}}, {1, {{0, 0}, {3, 0}}}, {2, {{0, 0}}}, {3, {{1, 0}}}}));
  const csr_file file = csr_file::open(dir / "g.bcsr");
  EXPECT_EQ(file.header().num_vertices, 5u);  // vertex 4 is isolated but declared
  EXPECT_TRUE(file.header().symmetric());
}

TEST(MatrixMarket, IntegerValuesBecomeWeightsRealOnesDoNot) {
  test::scratch_dir dir;
  test::write_text(dir / "i.mtx",
                   "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 10\n2 3 20\n");
  const matrix_market_source ints(dir / "i.mtx");
  EXPECT_TRUE(ints.has_weights());
  EXPECT_EQ(build_model(ints, dir / "i.bcsr"), (adjacency_model{{0, {{1, 10}}}, {1, {{2, 20}}}}));

  test::write_text(dir / "r.mtx",
                   "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n2 3 -1e3\n");
  const matrix_market_source reals(dir / "r.mtx");
  EXPECT_EQ(reals.values(), matrix_market_source::value_kind::real);
  EXPECT_FALSE(reals.has_weights());
  EXPECT_EQ(test::all_edges(reals).size(), 2u);
}

TEST(MatrixMarket, ErrorsNameFileAndLine) {
  test::scratch_dir dir;
  const auto path = dir / "bad.mtx";
  auto open = [&] { (void)test::all_edges(matrix_market_source(path)); };
  const std::string p = path.string();

  test::write_text(path, "1 2\n");
  EXPECT_NE(parse_failure(open).find(p + ":1: not a Matrix Market file"), std::string::npos);
  test::write_text(path, "%%MatrixMarket matrix array real general\n2 2\n");
  EXPECT_EQ(parse_failure(open),
            p + ":1: only \"matrix coordinate\" files hold graphs, this is \"matrix array\"");
  test::write_text(path, "%%MatrixMarket matrix coordinate complex general\n");
  EXPECT_NE(parse_failure(open).find("unsupported field \"complex\""), std::string::npos);
  test::write_text(path, "%%MatrixMarket matrix coordinate pattern hermitian\n");
  EXPECT_NE(parse_failure(open).find("unsupported symmetry \"hermitian\""), std::string::npos);
  test::write_text(path, "%%MatrixMarket matrix coordinate pattern general\n%\n3 4 1\n1 2\n");
  EXPECT_EQ(parse_failure(open), p + ":3: a graph needs a square matrix, this one is 3 x 4");
  test::write_text(path, "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n");
  EXPECT_EQ(parse_failure(open),
            p + ":5: the size line declares 3 entries but the file has 2 (truncated?)");
  test::write_text(path, "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n4 1\n");
  EXPECT_EQ(parse_failure(open), p + ":4: indices must be integers in 1..3, got \"4 1\"");
  test::write_text(path, "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 1\n");
  EXPECT_EQ(parse_failure(open), p + ":3: indices must be integers in 1..3, got \"0 1\"");
  test::write_text(path, "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 -4\n");
  EXPECT_NE(
      parse_failure(open).find(":3: integer values become weights and must be in 0..4294967295"),
      std::string::npos);
  test::write_text(path, "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n");
  EXPECT_EQ(parse_failure(open), p + ":3: \"abc\" is not a real number");
  test::write_text(path, "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2\n");
  EXPECT_EQ(parse_failure(open), p + ":3: a valued entry has 3 fields, this one has 2");
  test::write_text(path, "%%MatrixMarket matrix coordinate pattern general\n");
  EXPECT_NE(parse_failure(open).find("truncated: no size line"), std::string::npos);
}

}  // namespace
}  // namespace bam::graph
