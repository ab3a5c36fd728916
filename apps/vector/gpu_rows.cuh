// SPDX-License-Identifier: Apache-2.0
// bam::vec::gpu: small kernels over float rows in VRAM (squared norms), nvcc only.
#pragma once

#include <cstdint>

namespace bam::vec::gpu {

/// norms[i] = sum_j rows[i][j]^2 for row-major rows (n x d).
void row_norms(const float* rows, std::uint64_t n, std::uint32_t d, float* norms);

}  // namespace bam::vec::gpu
