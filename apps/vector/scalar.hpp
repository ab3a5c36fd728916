// SPDX-License-Identifier: Apache-2.0
// bam::vec: the scalar types vectors are stored as (float32, IEEE fp16, uint8) and their
// conversion to float, written once for host and device.
#pragma once

#include <bam/config.hpp>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

#include <cstdint>
#include <cstring>
#include <string>

namespace bam::vec {

/// How a vector's elements are stored (the value is the on-disk code in ivf files).
enum class scalar_type : std::uint8_t { f32 = 1, f16 = 2, u8 = 3 };

/// An IEEE 754 binary16 value, kept as its bits (trivially copyable, 2 bytes: divides any page).
struct half {
  std::uint16_t bits;
};
static_assert(sizeof(half) == 2);

/// Bytes per element of `t`; 0 for an unknown code.
[[nodiscard]] BAM_HD constexpr std::size_t scalar_bytes(scalar_type t) {
  switch (t) {
    case scalar_type::f32: return 4;
    case scalar_type::f16: return 2;
    case scalar_type::u8: return 1;
  }
  return 0;
}

/// The type name used on command lines and in JSON: "f32", "f16", "u8".
[[nodiscard]] std::string to_string(scalar_type t);
/// Parses "f32"/"float32", "f16"/"float16", "u8"/"uint8"; throws bam::invalid_argument otherwise.
[[nodiscard]] scalar_type parse_scalar(const std::string& name);

/// fp16 bits to float (exact: every binary16 value is a float).
[[nodiscard]] BAM_HD inline float half_to_float(half h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h.bits));
#else
  const std::uint32_t sign = std::uint32_t(h.bits & 0x8000u) << 16;
  std::uint32_t exp = (h.bits >> 10) & 0x1fu;
  std::uint32_t man = h.bits & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);  // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);  // normal: rebias 15 -> 127
  } else if (man == 0) {
    bits = sign;  // signed zero
  } else {        // subnormal: normalise
    exp = 113;
    while ((man & 0x400u) == 0) {
      man <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
#endif
}

/// float to the nearest fp16 (ties to even); overflow gives infinity (host code).
[[nodiscard]] half float_to_half(float f);

[[nodiscard]] BAM_HD inline float to_float(float x) { return x; }
[[nodiscard]] BAM_HD inline float to_float(std::uint8_t x) { return float(x); }
[[nodiscard]] BAM_HD inline float to_float(half x) { return half_to_float(x); }

/// The scalar_type of a C++ element type.
template <class T>
inline constexpr scalar_type scalar_of = scalar_type::f32;
template <>
inline constexpr scalar_type scalar_of<half> = scalar_type::f16;
template <>
inline constexpr scalar_type scalar_of<std::uint8_t> = scalar_type::u8;

/// Calls `f(T{})` with the element type that `t` names (f32 -> float, f16 -> half, u8 -> uint8_t).
template <class F>
decltype(auto) visit_scalar(scalar_type t, F&& f) {
  switch (t) {
    case scalar_type::f16: return f(half{});
    case scalar_type::u8: return f(std::uint8_t{});
    case scalar_type::f32: break;
  }
  return f(float{});
}

}  // namespace bam::vec
