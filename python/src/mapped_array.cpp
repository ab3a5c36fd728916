// SPDX-License-Identifier: Apache-2.0
#include "mapped_array.hpp"

#include <bam/error.hpp>

namespace bam::python {

namespace {
struct dtype_info {
  dtype type;
  const char* name;
  std::size_t bytes;
};
constexpr dtype_info dtypes[] = {{dtype::float32, "float32", 4}, {dtype::float16, "float16", 2},
                                 {dtype::bfloat16, "bfloat16", 2}, {dtype::int32, "int32", 4},
                                 {dtype::int64, "int64", 8},       {dtype::uint8, "uint8", 1}};
}  // namespace

dtype parse_dtype(const std::string& name) {
  for (const auto& d : dtypes)
    if (name == d.name) return d.type;
  throw invalid_argument("dtype '" + name + "' is not one of float32, float16, bfloat16, int32, int64, uint8");
}

std::string dtype_name(dtype d) { return dtypes[static_cast<int>(d)].name; }
std::size_t dtype_bytes(dtype d) { return dtypes[static_cast<int>(d)].bytes; }

mapped_array map_array(page_cache& cache, const std::string& name, dtype type, std::vector<std::uint64_t> shape,
                       std::uint32_t nsid, std::uint64_t start_lba) {
  if (shape.empty() || shape.size() > 2)
    throw invalid_argument("map(" + name + "): shape must have 1 or 2 dimensions, got " +
                           std::to_string(shape.size()));
  std::uint64_t n = 1;
  for (const auto s : shape) {
    if (s == 0) throw invalid_argument("map(" + name + "): every dimension of shape must be positive");
    n *= s;
  }
  const mapping m{.name = name, .nsid = nsid, .start_lba = start_lba, .count = n};
  auto make = [&]() -> mapped_array::view {
    switch (type) {
      case dtype::uint8: return cache.map<std::uint8_t>(m);
      case dtype::float16:
      case dtype::bfloat16: return cache.map<std::uint16_t>(m);
      case dtype::float32: return cache.map<float>(m);
      case dtype::int32: return cache.map<std::int32_t>(m);
      case dtype::int64: return cache.map<std::int64_t>(m);
    }
    throw invalid_argument("map(" + name + "): unknown dtype");
  };
  mapped_array::view v = make();
  const std::uint32_t id = std::visit([](const auto& a) { return a.range_id(); }, v);
  return mapped_array{v, type, std::move(shape), name, id};
}

}  // namespace bam::python
