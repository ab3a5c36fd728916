// SPDX-License-Identifier: Apache-2.0
// The CSR file format: layout rules, and what the writer writes is what the reader reads.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "apps/graph/csr_file.hpp"
#include "apps/graph/csr_writer.hpp"
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

TEST(CsrFormat, IdWidthIsFourBytesWhileIdsStayBelowAllOnes) {
  EXPECT_EQ(id_bytes_for(0), 4u);
  EXPECT_EQ(id_bytes_for(0xFFFFFFFFull), 4u);  // largest id 0xFFFFFFFE
  EXPECT_EQ(id_bytes_for(0x100000000ull), 8u);
}

TEST(CsrFormat, SectionsArePageAlignedAndPacked) {
  const csr_layout empty = compute_layout(0, 0, 4, false);
  EXPECT_EQ(empty.offsets_offset, 4096u);
  EXPECT_EQ(empty.neighbors_offset, 8192u);  // one offset still takes a page
  EXPECT_EQ(empty.weights_offset, 0u);
  EXPECT_EQ(empty.file_bytes, 8192u);

  const csr_layout l = compute_layout(1000, 5000, 4, true);
  EXPECT_EQ(l.offsets_offset, 4096u);
  EXPECT_EQ(l.neighbors_offset, 4096u + 8192u);              // 1001 * 8 = 8008 bytes
  EXPECT_EQ(l.weights_offset, l.neighbors_offset + 20480u);  // 5000 * 4 = 20000 bytes
  EXPECT_EQ(l.file_bytes, l.weights_offset + 20480u);
  EXPECT_EQ(compute_layout(1000, 5000, 8, false).file_bytes, 4096u + 8192u + 40960u);
}

struct small_graph {
  std::vector<std::uint64_t> degrees{2, 0, 3, 1};
  std::vector<std::uint32_t> neighbors{1, 2, 0, 1, 3, 2};
  std::vector<weight_t> weights{5, 6, 5, 7, 8, 8};
};

template <class Id>
void expect_small_graph(const csr_view<Id>& g, bool weighted) {
  const small_graph s;
  ASSERT_EQ(g.num_vertices(), 4u);
  ASSERT_EQ(g.num_edges(), 6u);
  EXPECT_EQ(std::vector<std::uint64_t>(g.offsets.begin(), g.offsets.end()),
            (std::vector<std::uint64_t>{0, 2, 2, 5, 6}));
  for (std::size_t i = 0; i < s.neighbors.size(); ++i) EXPECT_EQ(g.neighbors[i], s.neighbors[i]);
  EXPECT_EQ(g.weighted, weighted);
  if (weighted) {
    EXPECT_EQ(std::vector<weight_t>(g.weights.begin(), g.weights.end()), s.weights);
  } else {
    EXPECT_TRUE(g.weights.empty());
  }
}

TEST(CsrFormat, RoundTripInSeveralAppends) {
  test::scratch_dir dir;
  const small_graph s;
  for (const bool weighted : {false, true}) {
    const auto path = dir / (weighted ? "w.bcsr" : "u.bcsr");
    csr_writer writer(path, {.num_vertices = 4, .weighted = weighted, .symmetric = false});
    const std::span<const weight_t> w(s.weights);
    writer.append<std::uint32_t>(std::span(s.degrees).first(2), std::span(s.neighbors).first(2),
                                 weighted ? w.first(2) : std::span<const weight_t>{});
    writer.append<std::uint32_t>(std::span(s.degrees).subspan(2), std::span(s.neighbors).subspan(2),
                                 weighted ? w.subspan(2) : std::span<const weight_t>{});
    const csr_header written = writer.finish();

    const csr_file file = csr_file::open(path);
    EXPECT_EQ(std::memcmp(&written, &file.header(), sizeof written), 0);
    EXPECT_EQ(file.header().file_bytes, std::filesystem::file_size(path));
    EXPECT_EQ(file.header().file_bytes % csr_page_bytes, 0u);
    EXPECT_EQ(file.header().neighbors_offset % csr_page_bytes, 0u);
    EXPECT_EQ(file.header().weights_offset % csr_page_bytes, 0u);
    EXPECT_FALSE(file.header().symmetric());
    expect_small_graph(file.view<std::uint32_t>(), weighted);
    EXPECT_THROW((void)file.view<std::uint64_t>(), graph_error);
    EXPECT_FALSE(std::filesystem::exists(dir / (weighted ? "w.bcsr.partial" : "u.bcsr.partial")));
    EXPECT_FALSE(std::filesystem::exists(dir / (weighted ? "w.bcsr.weights" : "u.bcsr.weights")));
  }
}

TEST(CsrFormat, EightByteIdsCanBeForced) {
  test::scratch_dir dir;
  const small_graph s;
  const std::vector<std::uint64_t> wide(s.neighbors.begin(), s.neighbors.end());
  csr_writer writer(dir / "g.bcsr", {.num_vertices = 4, .weighted = true, .id_bytes = 8});
  EXPECT_THROW(writer.append<std::uint32_t>(s.degrees, s.neighbors, s.weights), graph_error);
  writer.append<std::uint64_t>(s.degrees, wide, s.weights);
  writer.finish();
  const csr_file file = csr_file::open(dir / "g.bcsr");
  EXPECT_EQ(file.header().id_bytes, 8u);
  expect_small_graph(file.view<std::uint64_t>(), true);
}

TEST(CsrFormat, EmptyGraph) {
  test::scratch_dir dir;
  csr_writer writer(dir / "e.bcsr", {.num_vertices = 0, .symmetric = true});
  writer.finish();
  const csr_file file = csr_file::open(dir / "e.bcsr");
  EXPECT_EQ(file.header().num_vertices, 0u);
  EXPECT_EQ(file.view<std::uint32_t>().num_edges(), 0u);
  EXPECT_TRUE(file.header().symmetric());
}

TEST(CsrFormat, WriterRefusesMisuseAndLeavesNoFiles) {
  test::scratch_dir dir;
  const small_graph s;
  {
    csr_writer writer(dir / "g.bcsr", {.num_vertices = 4});
    const std::vector<std::uint64_t> wrong_degrees{2, 0, 3, 2};
    EXPECT_THROW(writer.append<std::uint32_t>(wrong_degrees, s.neighbors, {}), graph_error);
    EXPECT_THROW(writer.append<std::uint32_t>(s.degrees, s.neighbors, s.weights), graph_error);
    writer.append<std::uint32_t>(std::span(s.degrees).first(1), std::span(s.neighbors).first(2),
                                 {});
    EXPECT_THROW(writer.finish(), graph_error);  // 1 of 4 vertices
    EXPECT_THROW(writer.append<std::uint32_t>(s.degrees, s.neighbors, {}), graph_error);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  EXPECT_THROW(csr_writer(dir / "g.bcsr", {.num_vertices = 0x100000000ull, .id_bytes = 4}),
               graph_error);
  EXPECT_THROW(csr_writer(dir / "missing" / "g.bcsr", {.num_vertices = 1}), io_error);
}

}  // namespace
}  // namespace bam::graph
