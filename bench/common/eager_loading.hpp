// SPDX-License-Identifier: Apache-2.0
// Kernels loaded at start-up, so that no timed launch pays for loading its kernel.
#pragma once

#include <cstdlib>

namespace bam::bench {

/// CUDA loads a kernel at its first launch by default (CUDA_MODULE_LOADING=LAZY): a benchmark
/// that times a kernel's first launch would count the loading, more for larger kernels. Call
/// this first in main(), before any CUDA call; a CUDA_MODULE_LOADING already set is kept.
inline void load_kernels_eagerly() { setenv("CUDA_MODULE_LOADING", "EAGER", 0); }

}  // namespace bam::bench
