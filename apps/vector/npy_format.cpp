// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/npy_format.hpp"

#include "apps/vector/file_io.hpp"

#include <cstring>
#include <string_view>

namespace bam::vec::npy {

namespace {

constexpr std::string_view magic = "\x93NUMPY";

std::size_t item_bytes_of(const std::string& descr) {
  if (descr == "<f4" || descr == "<i4") return 4;
  if (descr == "<f8" || descr == "<i8") return 8;
  if (descr == "<f2") return 2;
  if (descr == "|u1" || descr == "<u1") return 1;
  return 0;
}

/// The text after `'key':` in the header dict, with leading spaces skipped.
std::string_view value_of(const std::string& path, std::string_view dict, std::string_view key) {
  const std::string quoted = "'" + std::string(key) + "'";
  const auto at = dict.find(quoted);
  if (at == std::string_view::npos) bad_file(path, "npy header has no " + quoted + ": " + std::string(dict));
  auto rest = dict.substr(at + quoted.size());
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos) bad_file(path, "npy header: no ':' after " + quoted);
  rest = rest.substr(colon + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

}  // namespace

header parse_header(const std::string& path, std::span<const std::byte> bytes) {
  const auto* c = reinterpret_cast<const char*>(bytes.data());
  if (bytes.size() < 10 || std::string_view(c, 6) != magic) bad_file(path, "not a .npy file (no \\x93NUMPY magic)");
  const unsigned major = unsigned(bytes[6]);
  std::size_t len = 0, start = 0;
  if (major == 1) {
    len = std::size_t(std::uint8_t(c[8])) | std::size_t(std::uint8_t(c[9])) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad_file(path, "truncated .npy header");
    std::uint32_t l = 0;
    std::memcpy(&l, c + 8, 4);
    len = l;
    start = 12;
  } else {
    bad_file(path, "unsupported .npy version " + std::to_string(major));
  }
  if (bytes.size() < start + len) bad_file(path, "truncated .npy header (" + std::to_string(len) + " bytes declared)");
  const std::string dict(c + start, len);

  header h;
  auto descr = value_of(path, dict, "descr");
  if (descr.size() < 2 || descr.front() != '\'') bad_file(path, "npy descr is not a simple string: " + dict);
  h.descr = std::string(descr.substr(1, descr.find('\'', 1) - 1));
  h.item_bytes = item_bytes_of(h.descr);
  if (h.item_bytes == 0)
    bad_file(path, "unsupported npy dtype '" + h.descr + "' (supported: <f4 <f8 <f2 |u1 <i4 <i8, little-endian)");
  if (value_of(path, dict, "fortran_order").substr(0, 5) != "False")
    bad_file(path, "npy array is in Fortran order; write it C-contiguous (numpy.ascontiguousarray)");

  auto shape = value_of(path, dict, "shape");
  if (shape.empty() || shape.front() != '(') bad_file(path, "npy shape is not a tuple: " + dict);
  shape = shape.substr(1, shape.find(')') - 1);
  std::vector<std::uint64_t> dims;
  std::string_view rest = shape;
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == ',')) rest.remove_prefix(1);
    if (rest.empty()) break;
    std::uint64_t v = 0;
    std::size_t n = 0;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') v = v * 10 + std::uint64_t(rest[n++] - '0');
    if (n == 0) bad_file(path, "npy shape has a non-numeric entry: (" + std::string(shape) + ")");
    dims.push_back(v);
    rest.remove_prefix(n);
  }
  if (dims.size() != 2)
    bad_file(path, "npy array has " + std::to_string(dims.size()) + " dimensions, shape (" + std::string(shape) +
                       "); vectors need a 2-D (rows, dim) array");
  if (dims[1] == 0 || dims[1] > (1u << 20)) bad_file(path, "npy row dimension " + std::to_string(dims[1]) + " out of range");
  if (dims[0] == 0) bad_file(path, "npy array has no rows");
  h.rows = dims[0];
  h.cols = std::uint32_t(dims[1]);
  h.data_offset = start + len;
  const std::uint64_t want = h.rows * h.cols * h.item_bytes;
  const std::uint64_t have = bytes.size() - h.data_offset;
  if (have != want)
    bad_file(path, std::string(have < want ? "truncated" : "trailing bytes") + ": shape (" + std::to_string(h.rows) + ", " +
                       std::to_string(h.cols) + ") of " + h.descr + " needs " + std::to_string(want) +
                       " data bytes, the file has " + std::to_string(have));
  return h;
}

std::vector<std::byte> make_header(const std::string& descr, std::uint64_t rows, std::uint32_t cols) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "), }";
  const std::size_t unpadded = 10 + dict.size() + 1;  // magic, version, length, dict, '\n'
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::vector<std::byte> out(10 + dict.size());
  std::memcpy(out.data(), magic.data(), 6);
  out[6] = std::byte{1};
  out[7] = std::byte{0};
  out[8] = std::byte(dict.size() & 0xff);
  out[9] = std::byte(dict.size() >> 8);
  std::memcpy(out.data() + 10, dict.data(), dict.size());
  return out;
}

}  // namespace bam::vec::npy
