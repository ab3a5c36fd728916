// SPDX-License-Identifier: Apache-2.0
// The one question every app asks before choosing an engine: does a GPU run the work?
#pragma once

namespace bam::apps {

/// True unless `force_cpu`, the build has no CUDA runtime, or the CUDA runtime sees no device.
[[nodiscard]] bool use_gpu(bool force_cpu);

}  // namespace bam::apps
