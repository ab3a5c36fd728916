// SPDX-License-Identifier: Apache-2.0
// Vector file formats: every writer's output reads back identically; truncated, corrupt and
// inconsistent files are refused with a message naming the file and the problem.
#include "apps/vector/formats.hpp"
#include "apps/vector/npy_format.hpp"
#include "apps/vector/scalar.hpp"

#include "tests/vector/temp_dir.hpp"

#include <bam/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

namespace {

using namespace bam::vec;

matrix<float> sample_floats(std::uint64_t rows, std::uint32_t dim) {
  matrix<float> m(rows, dim);
  for (std::size_t i = 0; i < m.data.size(); ++i) m.data[i] = float(i % 97) * 0.25f - 3.0f;
  return m;
}

void write_raw(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_raw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The message of the bam::invalid_argument `fn` throws ("" when it does not throw).
template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const bam::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Formats, FloatRowsRoundTripThroughFvecsAndNpy) {
  bam::test::temp_dir dir;
  const auto m = sample_floats(17, 5);
  for (const char* name : {"a.fvecs", "a.npy"}) {
    write_vectors(dir / name, m);
    const auto back = read_vectors(dir / name);
    EXPECT_EQ(back.rows, 17u) << name;
    EXPECT_EQ(back.dim, 5u) << name;
    EXPECT_EQ(back.data, m.data) << name;
  }
}

TEST(Formats, BytesRoundTripThroughBvecsAndNpyAndReadAsFloats) {
  bam::test::temp_dir dir;
  matrix<std::uint8_t> m(9, 784);
  for (std::size_t i = 0; i < m.data.size(); ++i) m.data[i] = std::uint8_t(i * 7);
  for (const char* name : {"b.bvecs", "b.npy"}) {
    write_vectors(dir / name, m);
    const auto back = read_vectors(dir / name);
    ASSERT_EQ(back.rows, 9u);
    ASSERT_EQ(back.dim, 784u);
    for (std::size_t i = 0; i < m.data.size(); ++i) ASSERT_EQ(back.data[i], float(m.data[i])) << name << " " << i;
  }
}

TEST(Formats, IdsRoundTripThroughIvecsAndNpy) {
  bam::test::temp_dir dir;
  matrix<std::int64_t> m(4, 100);
  for (std::size_t i = 0; i < m.data.size(); ++i) m.data[i] = std::int64_t(i * 31 % 60000);
  for (const char* name : {"gt.ivecs", "gt.npy"}) {
    write_ids(dir / name, m);
    const auto back = read_ids(dir / name);
    EXPECT_EQ(back.rows, 4u);
    EXPECT_EQ(back.dim, 100u);
    EXPECT_EQ(back.data, m.data) << name;
  }
  matrix<std::int64_t> big(1, 1);
  big.data[0] = std::int64_t(1) << 40;
  EXPECT_NE(error_of([&] { write_ids(dir / "big.ivecs", big); }).find("does not fit"), std::string::npos);
}

TEST(Formats, HalfPrecisionNpyIsRead) {
  bam::test::temp_dir dir;
  const float values[] = {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 3.140625f};
  std::string bytes;
  const auto head = npy::make_header("<f2", 2, 3);
  bytes.assign(reinterpret_cast<const char*>(head.data()), head.size());
  for (const float v : values) {
    const half h = float_to_half(v);
    bytes.append(reinterpret_cast<const char*>(&h.bits), 2);
  }
  write_raw(dir / "h.npy", bytes);
  const auto m = read_vectors(dir / "h.npy");
  ASSERT_EQ(m.rows, 2u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(m.data[std::size_t(i)], values[i]);
}

TEST(Formats, HalfConversionRoundsToNearestEvenAndKeepsSpecials) {
  EXPECT_EQ(float_to_half(1.0f).bits, 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f).bits, 0xc000);
  EXPECT_EQ(float_to_half(65504.0f).bits, 0x7bff);
  EXPECT_EQ(float_to_half(1e6f).bits, 0x7c00);                  // overflow: inf
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048).bits, 0x3c00);    // halfway: to even
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048).bits, 0x3c02);    // halfway: to even (up)
  EXPECT_EQ(float_to_half(5.960464477539063e-08f).bits, 0x0001);  // smallest subnormal
  for (std::uint32_t b = 0; b < 0x7c00; b += 7) EXPECT_EQ(float_to_half(half_to_float(half{std::uint16_t(b)})).bits, b);
  EXPECT_TRUE(std::isnan(half_to_float(half{0x7e00})));
}

TEST(Formats, TruncatedFvecsIsRefusedNamingTheFile) {
  bam::test::temp_dir dir;
  write_vectors(dir / "t.fvecs", sample_floats(3, 4));
  auto bytes = read_raw(dir / "t.fvecs");
  write_raw(dir / "t.fvecs", bytes.substr(0, bytes.size() - 3));
  const std::string e = error_of([&] { (void)read_vectors(dir / "t.fvecs"); });
  EXPECT_NE(e.find("t.fvecs"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST(Formats, ADimensionChangeInsideAVecsFileIsRefused) {
  bam::test::temp_dir dir;
  write_vectors(dir / "d.fvecs", sample_floats(3, 4));
  auto bytes = read_raw(dir / "d.fvecs");
  const std::int32_t wrong = 5;
  std::memcpy(bytes.data() + 2 * (4 + 16), &wrong, 4);  // row 2 claims 5 dimensions
  write_raw(dir / "d.fvecs", bytes);
  const std::string e = error_of([&] { (void)read_vectors(dir / "d.fvecs"); });
  EXPECT_NE(e.find("row 2 declares dimension 5"), std::string::npos) << e;
}

TEST(Formats, EmptyAndUnknownFilesAreRefused) {
  bam::test::temp_dir dir;
  write_raw(dir / "e.fvecs", "");
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "e.fvecs"); }).find("empty"), std::string::npos);
  write_raw(dir / "x.csv", "1,2,3");
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "x.csv"); }).find("unknown vector file format"), std::string::npos);
  EXPECT_THROW((void)read_vectors(dir / "missing.fvecs"), bam::system_error);
  write_raw(dir / "neg.fvecs", std::string("\xff\xff\xff\xff", 4));
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "neg.fvecs"); }).find("declares dimension -1"), std::string::npos);
}

TEST(Formats, BadNpyFilesAreRefused) {
  bam::test::temp_dir dir;
  write_vectors(dir / "good.npy", sample_floats(6, 3));
  const auto good = read_raw(dir / "good.npy");

  write_raw(dir / "cut.npy", good.substr(0, good.size() - 1));
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "cut.npy"); }).find("truncated"), std::string::npos);

  write_raw(dir / "long.npy", good + "x");
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "long.npy"); }).find("trailing bytes"), std::string::npos);

  write_raw(dir / "magic.npy", "NOTNUMPY" + good.substr(8));
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "magic.npy"); }).find("magic"), std::string::npos);

  const auto three_d = npy::make_header("<f4", 2, 3);
  std::string s(reinterpret_cast<const char*>(three_d.data()), three_d.size());
  s.replace(s.find("(2, 3)"), 6, "(2,3,1)");
  write_raw(dir / "3d.npy", s + std::string(24, '\0'));
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "3d.npy"); }).find("3 dimensions"), std::string::npos);

  const auto big_endian = npy::make_header(">f4", 1, 1);
  write_raw(dir / "be.npy", std::string(reinterpret_cast<const char*>(big_endian.data()), big_endian.size()) + "abcd");
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "be.npy"); }).find("unsupported npy dtype"), std::string::npos);

  write_vectors(dir / "f.npy", sample_floats(2, 2));
  EXPECT_NE(error_of([&] { (void)read_ids(dir / "f.npy"); }).find("ids must be"), std::string::npos);
}

TEST(Formats, NonFiniteFloatsAreRefused) {
  bam::test::temp_dir dir;
  auto m = sample_floats(2, 3);
  m.data[4] = std::nanf("");
  write_vectors(dir / "nan.fvecs", m);
  EXPECT_NE(error_of([&] { (void)read_vectors(dir / "nan.fvecs"); }).find("row 1 element 1 is not finite"), std::string::npos);
}
