// SPDX-License-Identifier: Apache-2.0
// Test support for cache/: iteration budgets that keep the threaded suites near a few seconds on
// two cores, a few times smaller under ThreadSanitizer.
#pragma once

namespace bam::test {

#if defined(__SANITIZE_THREAD__)
inline constexpr unsigned stress_scale = 3;  ///< multiplier of every iteration count
#else
inline constexpr unsigned stress_scale = 16; ///< multiplier of every iteration count
#endif

}  // namespace bam::test
