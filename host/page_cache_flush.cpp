// SPDX-License-Identifier: Apache-2.0
#include "host/page_cache_flush.hpp"

#include <bam/detail/clock.hpp>
#include <bam/error.hpp>
#include <bam/host/memory/device_copy.hpp>

#include <algorithm>
#include <thread>

namespace bam::host::detail {

status flush_cache(const cache::cache_ref<nvme_backend>& cache, const nvme_backend& backend,
                   const std::vector<std::uint32_t>& nsids, std::uint64_t timeout_ns, bool on_gpu,
                   stream_handle stream) {
#if BAM_WITH_CUDA_RUNTIME
  if (on_gpu) return flush_cache_gpu(cache, backend, nsids, timeout_ns, stream);
#else
  if (on_gpu) throw error("page_cache::flush: GPU-driven queues in a build without the CUDA runtime");
#endif
  await_stream(stream, "page_cache::flush");
  const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<status> results(threads, status::ok);
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t)
    team.emplace_back([&, t] { results[t] = cache.flush(t, threads); });
  for (auto& th : team) th.join();
  status result = status::ok;
  for (const status s : results)
    if (result == status::ok) result = s;
  for (const std::uint32_t nsid : nsids) {
    const status s = backend.flush_namespace(nsid, bam::detail::now_ns() + timeout_ns);
    if (result == status::ok) result = s;
  }
  return result;
}

}  // namespace bam::host::detail
