// SPDX-License-Identifier: Apache-2.0
#include "apps/common/gpu_query.hpp"

#if BAM_WITH_CUDA_RUNTIME
#include <bam/host/memory/cuda_memory.hpp>
#endif

namespace bam::apps {

bool use_gpu(bool force_cpu) {
#if BAM_WITH_CUDA_RUNTIME
  return !force_cpu && host::cuda_device_present();
#else
  (void)force_cpu;
  return false;
#endif
}

}  // namespace bam::apps
