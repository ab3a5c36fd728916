// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/formats.hpp"

#include "apps/vector/file_io.hpp"
#include "apps/vector/npy_format.hpp"
#include "apps/vector/vecs_format.hpp"

#include <bam/error.hpp>

#include <cmath>
#include <cstring>

namespace bam::vec {

namespace {

template <class V>
V load(const std::byte* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// One npy value as T (T = float or int64), from its descr.
template <class T>
T npy_value(const std::string& descr, const std::byte* p) {
  if (descr == "<f4") return T(load<float>(p));
  if (descr == "<f8") return T(load<double>(p));
  if (descr == "<f2") return T(half_to_float(load<half>(p)));
  if (descr == "<i4") return T(load<std::int32_t>(p));
  if (descr == "<i8") return T(load<std::int64_t>(p));
  return T(std::uint8_t(*p));
}

template <class T>
matrix<T> read_npy(const std::string& path, std::span<const std::byte> bytes) {
  const npy::header h = npy::parse_header(path, bytes);
  matrix<T> m(h.rows, h.cols);
  const std::byte* data = bytes.data() + h.data_offset;
  for (std::size_t i = 0; i < m.data.size(); ++i) m.data[i] = npy_value<T>(h.descr, data + i * h.item_bytes);
  return m;
}

template <class T>
void write_npy(const std::string& path, const std::string& descr, const matrix<T>& m) {
  const auto head = npy::make_header(descr, m.rows, m.dim);
  const std::span<const std::byte> parts[] = {head, std::as_bytes(std::span(m.data))};
  write_file(path, parts);
}

void write_bytes(const std::string& path, const std::vector<std::byte>& bytes) {
  const std::span<const std::byte> parts[] = {bytes};
  write_file(path, parts);
}

}  // namespace

file_format format_of(const std::string& path) {
  const auto ends = [&](const char* ext) {
    const std::size_t n = std::strlen(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  if (ends(".fvecs")) return file_format::fvecs;
  if (ends(".ivecs")) return file_format::ivecs;
  if (ends(".bvecs")) return file_format::bvecs;
  if (ends(".npy")) return file_format::npy;
  throw bam::invalid_argument(path + ": unknown vector file format (expected .fvecs, .ivecs, .bvecs or .npy)");
}

matrix<float> read_vectors(const std::string& path) {
  const file_format f = format_of(path);
  const auto bytes = read_file(path);
  switch (f) {
    case file_format::fvecs: {
      auto m = texmex::parse<float>(path, bytes, 4, load<float>);
      for (std::size_t i = 0; i < m.data.size(); ++i)
        if (!std::isfinite(m.data[i]))
          bad_file(path, "row " + std::to_string(i / m.dim) + " element " + std::to_string(i % m.dim) + " is not finite");
      return m;
    }
    case file_format::ivecs:
      return texmex::parse<float>(path, bytes, 4, [](const std::byte* p) { return float(load<std::int32_t>(p)); });
    case file_format::bvecs:
      return texmex::parse<float>(path, bytes, 1, [](const std::byte* p) { return float(std::uint8_t(*p)); });
    case file_format::npy: return read_npy<float>(path, bytes);
  }
  bad_file(path, "unreachable format");
}

matrix<std::int64_t> read_ids(const std::string& path) {
  const file_format f = format_of(path);
  const auto bytes = read_file(path);
  if (f == file_format::ivecs)
    return texmex::parse<std::int64_t>(path, bytes, 4, [](const std::byte* p) { return std::int64_t(load<std::int32_t>(p)); });
  if (f == file_format::npy) {
    const npy::header h = npy::parse_header(path, bytes);
    if (h.descr != "<i4" && h.descr != "<i8") bad_file(path, "ids must be <i4 or <i8, not " + h.descr);
    return read_npy<std::int64_t>(path, bytes);
  }
  bad_file(path, "ids must be .ivecs or .npy");
}

void write_vectors(const std::string& path, const matrix<float>& m) {
  switch (format_of(path)) {
    case file_format::fvecs:
      return write_bytes(path, texmex::serialise(m, 4, [](float v, std::byte* p) { std::memcpy(p, &v, 4); }));
    case file_format::npy: return write_npy(path, "<f4", m);
    default: throw bam::invalid_argument(path + ": float vectors are written as .fvecs or .npy");
  }
}

void write_vectors(const std::string& path, const matrix<std::uint8_t>& m) {
  switch (format_of(path)) {
    case file_format::bvecs:
      return write_bytes(path, texmex::serialise(m, 1, [](std::uint8_t v, std::byte* p) { *p = std::byte(v); }));
    case file_format::npy: return write_npy(path, "|u1", m);
    default: throw bam::invalid_argument(path + ": uint8 vectors are written as .bvecs or .npy");
  }
}

void write_ids(const std::string& path, const matrix<std::int64_t>& m) {
  switch (format_of(path)) {
    case file_format::ivecs:
      return write_bytes(path, texmex::serialise(m, 4, [&](std::int64_t v, std::byte* p) {
                           if (v < INT32_MIN || v > INT32_MAX)
                             throw bam::invalid_argument(path + ": id " + std::to_string(v) + " does not fit .ivecs (int32)");
                           const auto w = std::int32_t(v);
                           std::memcpy(p, &w, 4);
                         }));
    case file_format::npy: return write_npy(path, "<i8", m);
    default: throw bam::invalid_argument(path + ": ids are written as .ivecs or .npy");
  }
}

}  // namespace bam::vec
