// SPDX-License-Identifier: Apache-2.0
#include "bench/queue_read/peers.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/detail/gpu_seconds.hpp>
#include <bam/host/memory/cuda_buffer.hpp>
#include <bam/synthetic.hpp>

#if BAM_HAVE_CUFILE
#include <cufile.h>
#endif
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace bam::bench {

namespace {

__host__ __device__ inline std::uint64_t mix(std::uint64_t x) { return synthetic_word(0x5eed, x); }

/// Every warp reads `reads_per_warp` random pages, 16 bytes per lane per step, and counts words
/// that differ from the synthetic content.
__global__ void zero_copy_kernel(const uint4* data, std::uint64_t n_pages, std::uint32_t page_bytes,
                                 std::uint64_t seed, std::uint64_t reads_per_warp,
                                 unsigned long long* mismatches) {
  const std::uint64_t warp = (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  const std::uint32_t vecs = page_bytes / 16;
  unsigned long long bad = 0;
  for (std::uint64_t r = 0; r < reads_per_warp; ++r) {
    const std::uint64_t page = mix(warp * reads_per_warp + r) % n_pages;
    const uint4* p = data + page * vecs;
#pragma unroll 8
    for (std::uint32_t v = lane; v < vecs; v += 32) {
      const uint4 x = p[v];
      const std::uint64_t w = (page * page_bytes) / 8 + 2 * std::uint64_t(v);
      const std::uint64_t lo = (std::uint64_t(x.y) << 32) | x.x, hi = (std::uint64_t(x.w) << 32) | x.z;
      bad += (lo != synthetic_word(seed, w)) + (hi != synthetic_word(seed, w + 1));
    }
  }
  if (bad) atomicAdd(mismatches, bad);
}

}  // namespace

double h2d_bytes_per_s(std::size_t bytes, int repeats) {
  const bam::host::cuda_buffer<std::byte> h(bytes, bam::host::cuda_allocation::pinned);
  const bam::host::cuda_buffer<std::byte> d(bytes);
  std::memset(h.data(), 0x5a, bytes);
  std::vector<double> rates;
  for (int i = 0; i < repeats + 1; ++i) {
    const double s = bam::detail::gpu_seconds(
        [&] { BAM_CUDA_TRY(cudaMemcpyAsync(d.data(), h.data(), bytes, cudaMemcpyHostToDevice)); });
    if (i > 0) rates.push_back(double(bytes) / s);  // the first run warms up
  }
  std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
  return rates[rates.size() / 2];
}

page_rate zero_copy_random_pages(const std::byte* data, std::uint64_t data_bytes, std::uint32_t page_bytes,
                                 std::uint64_t seed, std::uint64_t reads) {
  int sms = 0;
  BAM_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned threads = 256, blocks = unsigned(sms) * 8;
  const std::uint64_t warps = std::uint64_t(blocks) * threads / 32;
  const std::uint64_t per_warp = std::max<std::uint64_t>(1, reads / warps);
  bam::host::cuda_buffer<unsigned long long> bad(1);
  bad.zero();
  const auto* vec = reinterpret_cast<const uint4*>(data);
  zero_copy_kernel<<<blocks, threads>>>(vec, data_bytes / page_bytes, page_bytes, seed, 1, bad.data());  // warm-up
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  bad.zero();
  const double seconds = bam::detail::gpu_seconds([&] {
    zero_copy_kernel<<<blocks, threads>>>(vec, data_bytes / page_bytes, page_bytes, seed, per_warp, bad.data());
  });
  unsigned long long mismatches = 0;
  bad.download({&mismatches, 1});
  page_rate r;
  r.pages = warps * per_warp;
  r.pages_per_s = double(r.pages) / seconds;
  r.mismatched_words = mismatches;
  return r;
}

#if !BAM_HAVE_CUFILE
page_rate cufile_random_pages(const std::string&, std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t,
                              unsigned) {
  page_rate r;
  r.error = "this build has no cuFile (libcufile-dev was not found at configure time)";
  return r;
}
#else
page_rate cufile_random_pages(const std::string& path, std::uint64_t file_bytes, std::uint32_t page_bytes,
                              std::uint64_t seed, std::uint64_t reads, unsigned threads) {
  page_rate r;
  // No nvidia-fs on the box: compatibility mode serves reads with POSIX I/O and bounce buffers.
  // It must be allowed in a cufile.json (the box has none in /etc).
  const std::string config = path + ".cufile.json";
  {
    std::ofstream f(config);
    f << R"({"logging": {"level": "ERROR", "dir": "/tmp"},)"
      << R"( "properties": {"allow_compat_mode": true, "use_poll_mode": false}})" << "\n";
  }
  setenv("CUFILE_ENV_PATH_JSON", config.c_str(), 1);
  setenv("CUFILE_FORCE_COMPAT_MODE", "true", 1);
  CUfileError_t st = cuFileDriverOpen();
  if (st.err != CU_FILE_SUCCESS) {
    r.error = "cuFileDriverOpen failed: " + std::string(cufileop_status_error(st.err));
    return r;
  }
  // O_DIRECT where the file system allows it: cuFile registers only such descriptors.
  int fd = open(path.c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    r.error = "cannot open " + path;
    cuFileDriverClose();
    return r;
  }
  CUfileDescr_t descr{};
  descr.handle.fd = fd;
  descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  CUfileHandle_t handle{};
  st = cuFileHandleRegister(&handle, &descr);
  if (st.err != CU_FILE_SUCCESS) {
    r.error = "cuFileHandleRegister failed: " + std::string(cufileop_status_error(st.err));
    close(fd);
    cuFileDriverClose();
    return r;
  }
  const std::uint64_t n_pages = file_bytes / page_bytes;
  std::vector<bam::host::cuda_buffer<std::byte>> bufs;
  bufs.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) bufs.emplace_back(page_bytes);
  std::atomic<std::uint64_t> done{0}, failures{0}, bad_words{0};
  const std::uint64_t per_thread = std::max<std::uint64_t>(1, reads / threads);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      cudaSetDevice(0);
      std::vector<std::uint64_t> check(page_bytes / 8);
      for (std::uint64_t i = 0; i < per_thread; ++i) {
        const std::uint64_t page = mix(std::uint64_t(t) << 40 | i) % n_pages;
        const ssize_t got = cuFileRead(handle, bufs[t].data(), page_bytes, off_t(page * page_bytes), 0);
        if (got != ssize_t(page_bytes)) {
          ++failures;
          continue;
        }
        ++done;
        if (i % 1024 == 0) {  // verify a sample: a copy back per read would measure cudaMemcpy
          cudaMemcpy(check.data(), bufs[t].data(), page_bytes, cudaMemcpyDeviceToHost);
          for (std::size_t w = 0; w < check.size(); ++w)
            if (check[w] != synthetic_word(seed, page * page_bytes / 8 + w)) ++bad_words;
        }
      }
    });
  }
  for (auto& th : team) th.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bufs.clear();  // freed before the cuFile handle and driver close
  cuFileHandleDeregister(handle);
  close(fd);
  cuFileDriverClose();
  r.pages = done;
  r.pages_per_s = double(done) / s;
  r.mismatched_words = bad_words;
  if (failures) r.error = std::to_string(failures.load()) + " cuFileRead calls failed";
  return r;
}
#endif

}  // namespace bam::bench
