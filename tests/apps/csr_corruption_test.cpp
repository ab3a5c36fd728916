// SPDX-License-Identifier: Apache-2.0
// Corrupt, truncated and foreign files are refused with a message naming the file and the fault.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "apps/graph/crc32.hpp"
#include "apps/graph/csr_file.hpp"
#include "apps/graph/csr_writer.hpp"
#include "graph_test_support.hpp"

namespace bam::graph {
namespace {

class CsrCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    // Vertices 0..4: 0-1, 0-2, 1-2, 3-4, weighted and symmetric.
    csr_writer writer(good_, {.num_vertices = 5, .weighted = true, .symmetric = true});
    const std::vector<std::uint64_t> degrees{2, 2, 2, 1, 1};
    const std::vector<std::uint32_t> neighbors{1, 2, 0, 2, 0, 1, 4, 3};
    const std::vector<weight_t> weights{3, 4, 3, 9, 4, 9, 1, 1};
    writer.append<std::uint32_t>(degrees, neighbors, weights);
    header_ = writer.finish();
    bytes_ = test::read_bytes(good_);
  }

  /// Writes `bytes` as bad.bcsr and returns the message open() throws (fails if none).
  std::string refusal(const std::vector<char>& bytes, verify_level level = verify_level::full) {
    test::write_bytes(bad_, bytes);
    try {
      (void)csr_file::open(bad_, level, 2);
    } catch (const format_error& e) {
      return e.what();
    }
    ADD_FAILURE() << "the damaged file was accepted";
    return {};
  }

  /// Changes a uint32/uint64 in place.
  template <class T>
  void poke(std::vector<char>& bytes, std::uint64_t offset, T value) {
    std::memcpy(bytes.data() + offset, &value, sizeof value);
  }

  /// Recomputes the header checksum so that only the field changed is wrong.
  void reseal_header(std::vector<char>& bytes) {
    csr_header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    h.header_crc32 = header_checksum(h);
    std::memcpy(bytes.data(), &h, sizeof h);
  }

  /// Recomputes every checksum so that only the structural fault remains.
  void reseal(std::vector<char>& bytes) {
    csr_header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    auto crc = [&bytes](std::uint64_t offset, std::uint64_t length) {
      return crc32_extend(0, std::as_bytes(std::span(bytes)).subspan(offset, length), 1);
    };
    h.offsets_crc32 = crc(h.offsets_offset, (h.num_vertices + 1) * 8);
    h.neighbors_crc32 = crc(h.neighbors_offset, h.num_edges * h.id_bytes);
    h.weights_crc32 = crc(h.weights_offset, h.num_edges * 4);
    h.header_crc32 = header_checksum(h);
    std::memcpy(bytes.data(), &h, sizeof h);
  }

  test::scratch_dir dir_;
  std::filesystem::path good_ = dir_ / "good.bcsr";
  std::filesystem::path bad_ = dir_ / "bad.bcsr";
  csr_header header_{};
  std::vector<char> bytes_;
};

#define EXPECT_REFUSED(message_part, ...)                                        \
  do {                                                                           \
    const std::string message = refusal(__VA_ARGS__);                            \
    EXPECT_NE(message.find(bad_.string() + ": "), std::string::npos) << message; \
    EXPECT_NE(message.find(message_part), std::string::npos) << message;         \
  } while (false)

TEST_F(CsrCorruption, GoodFileOpens) { EXPECT_NO_THROW((void)csr_file::open(good_)); }

TEST_F(CsrCorruption, ForeignFile) {
  std::vector<char> text(5000, 'x');
  EXPECT_REFUSED("not a bam CSR graph file (bad magic bytes)", text);
  EXPECT_REFUSED("not a bam CSR graph file", std::vector<char>(100, 'x'));
}

TEST_F(CsrCorruption, TruncatedFiles) {
  std::vector<char> bytes = bytes_;
  bytes.resize(bytes.size() - 4096);
  EXPECT_REFUSED("truncated: header says " + std::to_string(header_.file_bytes) +
                     " bytes, file has " + std::to_string(bytes.size()),
                 bytes);
  bytes.resize(100);
  EXPECT_REFUSED("truncated: 100 bytes, shorter than the 4096-byte header page", bytes);
  EXPECT_REFUSED("truncated: 0 bytes", std::vector<char>{});
}

TEST_F(CsrCorruption, TrailingBytes) {
  std::vector<char> bytes = bytes_;
  bytes.resize(bytes.size() + 10, 0);
  EXPECT_REFUSED("10 unexpected bytes after the end", bytes);
}

TEST_F(CsrCorruption, HeaderDamage) {
  std::vector<char> bytes = bytes_;
  poke<std::uint64_t>(bytes, offsetof(csr_header, num_edges), 9);
  EXPECT_REFUSED("header checksum mismatch", bytes);

  bytes = bytes_;
  poke<std::uint32_t>(bytes, offsetof(csr_header, version), 2);
  EXPECT_REFUSED("unsupported CSR format version 2", bytes);

  bytes = bytes_;
  poke<std::uint32_t>(bytes, offsetof(csr_header, id_bytes), 2);
  reseal_header(bytes);
  EXPECT_REFUSED("id_bytes is 2, expected 4 or 8", bytes);

  bytes = bytes_;
  poke<std::uint64_t>(bytes, offsetof(csr_header, weights_offset), header_.weights_offset + 4096);
  reseal_header(bytes);
  EXPECT_REFUSED("do not match the layout", bytes);

  bytes = bytes_;
  bytes[200] = 1;
  EXPECT_REFUSED("header page has non-zero bytes after the 128-byte header", bytes);
}

TEST_F(CsrCorruption, SectionChecksums) {
  std::vector<char> bytes = bytes_;
  bytes[header_.neighbors_offset + 5] ^= 0x10;
  EXPECT_REFUSED("neighbors section checksum mismatch", bytes);
  // Header-only verification does not read the sections; the check is still available.
  test::write_bytes(bad_, bytes);
  const csr_file quick = csr_file::open(bad_, verify_level::header);
  EXPECT_THROW(quick.verify_checksums(), format_error);

  bytes = bytes_;
  bytes[header_.weights_offset] ^= 0x01;
  EXPECT_REFUSED("weights section checksum mismatch", bytes);

  bytes = bytes_;
  bytes[header_.offsets_offset + 8] ^= 0x01;
  EXPECT_REFUSED("offsets section checksum mismatch", bytes);
}

TEST_F(CsrCorruption, StructuralFaultsBehindValidChecksums) {
  const std::uint64_t offsets = header_.offsets_offset;
  const std::uint64_t nbrs = header_.neighbors_offset;
  std::vector<char> bytes = bytes_;
  poke<std::uint64_t>(bytes, offsets + 2 * 8, 1);  // offsets 0, 2, 1, ...
  reseal(bytes);
  EXPECT_REFUSED("offsets decrease at vertex 1 (2 then 1)", bytes);

  bytes = bytes_;
  poke<std::uint64_t>(bytes, offsets, 1);
  reseal(bytes);
  EXPECT_REFUSED("offsets[0] is 1, expected 0", bytes);

  bytes = bytes_;
  poke<std::uint32_t>(bytes, nbrs + 6 * 4, 7);
  reseal(bytes);
  EXPECT_REFUSED("neighbor 7 of vertex 3 (edge 6) is not below the 5 vertices", bytes);

  bytes = bytes_;
  poke<std::uint32_t>(bytes, nbrs + 0 * 4, 2);  // vertex 0: 2, 2
  reseal(bytes);
  EXPECT_REFUSED("neighbors of vertex 0 are not sorted and unique at edge 1 (2 then 2)", bytes);

  bytes = bytes_;
  poke<std::uint32_t>(bytes, nbrs + 2 * 4, 1);  // vertex 1 lists itself
  reseal(bytes);
  EXPECT_REFUSED("vertex 1 lists itself (edge 2)", bytes);

  bytes = bytes_;
  bytes[header_.file_bytes - 1] = 1;  // padding after the weights
  EXPECT_REFUSED("non-zero padding", bytes);
  // Checksums alone do not cover padding.
  EXPECT_NO_THROW((void)csr_file::open(bad_, verify_level::checksums));
}

}  // namespace
}  // namespace bam::graph
