// SPDX-License-Identifier: Apache-2.0
// Names of scalar types and metrics, and float -> fp16 rounding.
#include "apps/vector/metric.hpp"
#include "apps/vector/scalar.hpp"

#include <bam/error.hpp>

#include <cstring>

namespace bam::vec {

std::string to_string(scalar_type t) {
  switch (t) {
    case scalar_type::f32: return "f32";
    case scalar_type::f16: return "f16";
    case scalar_type::u8: return "u8";
  }
  return "unknown(" + std::to_string(int(t)) + ")";
}

scalar_type parse_scalar(const std::string& name) {
  if (name == "f32" || name == "float32" || name == "float") return scalar_type::f32;
  if (name == "f16" || name == "float16" || name == "half") return scalar_type::f16;
  if (name == "u8" || name == "uint8") return scalar_type::u8;
  throw bam::invalid_argument("unknown storage type '" + name + "' (expected f32, f16 or u8)");
}

std::string to_string(metric m) {
  switch (m) {
    case metric::l2: return "l2";
    case metric::inner_product: return "ip";
  }
  return "unknown(" + std::to_string(int(m)) + ")";
}

metric parse_metric(const std::string& name) {
  if (name == "l2" || name == "euclidean" || name == "L2") return metric::l2;
  if (name == "ip" || name == "inner_product" || name == "dot" || name == "angular-ip") return metric::inner_product;
  throw bam::invalid_argument("unknown metric '" + name + "' (expected l2 or ip)");
}

half float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint16_t sign = std::uint16_t((x >> 16) & 0x8000u);
  const std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return {std::uint16_t(sign | 0x7c00u | (man ? 0x200u : 0u))};  // inf / NaN
  const int e = int(exp) - 127 + 15;
  if (e >= 0x1f) return {std::uint16_t(sign | 0x7c00u)};  // overflow -> inf
  if (e <= 0) {                                          // subnormal or zero
    if (e < -10) return {sign};
    man |= 0x800000u;
    const unsigned shift = unsigned(14 - e);
    std::uint32_t h = man >> shift;
    const std::uint32_t rem = man & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return {std::uint16_t(sign | h)};
  }
  std::uint32_t h = (std::uint32_t(e) << 10) | (man >> 13);
  const std::uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: correct
  return {std::uint16_t(sign | h)};
}

}  // namespace bam::vec
