// SPDX-License-Identifier: Apache-2.0
// bam: compile-time configuration shared by host and device code.
#pragma once

#include <cstddef>
#include <cstdint>

/// `BAM_HD` marks code written once for host and device: `__host__ __device__` under nvcc,
/// nothing under a plain C++ compiler (the model is CCCL's `_CCCL_HOST_DEVICE`).
#if defined(__CUDACC__)
#define BAM_HD __host__ __device__
#else
#define BAM_HD
#endif

/// `BAM_UNROLL_BY(n)` asks for a loop to be unrolled n times, in words each compiler pass
/// understands: `#pragma unroll n` in nvcc's device pass, nothing in nvcc's host pass (its front
/// end knows no host unroll pragma, and GCC warns about `#pragma unroll`), `#pragma GCC unroll n`
/// under a plain C++ compiler.
#define BAM_PRAGMA(text) _Pragma(#text)
#if defined(__CUDA_ARCH__)
#define BAM_UNROLL_BY(n) BAM_PRAGMA(unroll n)
#elif defined(__CUDACC__)
#define BAM_UNROLL_BY(n)
#else
#define BAM_UNROLL_BY(n) BAM_PRAGMA(GCC unroll n)
#endif

namespace bam {

inline constexpr int version_major = 0;
inline constexpr int version_minor = 1;

/// Threads in a GPU warp; also the width of `tests/support/cpu_warp` groups.
inline constexpr unsigned warp_size = 32;

/// Bytes in a cache line on both sides of PCIe; shared control words are padded to it so that
/// a word polled by one agent never shares a line with a word written by another.
inline constexpr std::size_t cache_line_bytes = 64;

}  // namespace bam
