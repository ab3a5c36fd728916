// SPDX-License-Identifier: Apache-2.0
// Runs a page cache's write-back on the side that drives its queues: kernels on the caller's
// stream when the queues are GPU-driven, CPU threads otherwise.
#pragma once

#include <bam/status.hpp>
#include <bam/stream.hpp>

#include "backend/nvme_backend.hpp"
#include "cache/cache_ref.hpp"

#include <cstdint>
#include <vector>

namespace bam::host::detail {

/**
 * @brief Writes back every dirty slot of `cache`, then sends NVMe Flush for each of `nsids` on
 * every controller, after the work queued on `stream` (GPU-driven queues: as kernels on it;
 * CPU threads wait for it first), and returns once done. Failures are recorded in the cache's
 * device_error slot too.
 * @return ok, or the first failure
 */
status flush_cache(const cache::cache_ref<nvme_backend>& cache, const nvme_backend& backend,
                   const std::vector<std::uint32_t>& nsids, std::uint64_t timeout_ns, bool on_gpu,
                   stream_handle stream);

#if BAM_WITH_CUDA_RUNTIME
status flush_cache_gpu(const cache::cache_ref<nvme_backend>& cache, const nvme_backend& backend,
                       const std::vector<std::uint32_t>& nsids, std::uint64_t timeout_ns, stream_handle stream);
#endif

}  // namespace bam::host::detail
