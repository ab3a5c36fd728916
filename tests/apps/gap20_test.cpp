// SPDX-License-Identifier: Apache-2.0
// The published GAP counts: -g20 -k16 and -u20 -k16 (labelled "slow" in CTest: tens of seconds
// each on 2 cores).
#include <gtest/gtest.h>

#include "apps/graph/csr_file.hpp"
#include "apps/graph/gap_generator.hpp"
#include "apps/graph/graph_builder.hpp"
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

csr_header build_and_open(gap_kind kind, const std::filesystem::path& path) {
  test::build_gap(kind, 20, 16, path);
  return csr_file::open(path, verify_level::full).header();
}

TEST(Gap20, KroneckerG20K16) {
  test::scratch_dir dir;
  const csr_header h = build_and_open(gap_kind::kron, dir / "g20.bcsr");
  EXPECT_EQ(h.num_vertices, 1048576u);
  EXPECT_EQ(h.num_edges / 2, 15699691u);
}

TEST(Gap20, UniformU20K16) {
  test::scratch_dir dir;
  const csr_header h = build_and_open(gap_kind::urand, dir / "u20.bcsr");
  EXPECT_EQ(h.num_vertices, 1048576u);
  EXPECT_EQ(h.num_edges / 2, 16776912u);
}

}  // namespace
}  // namespace bam::graph
