// SPDX-License-Identifier: Apache-2.0
// bam::host::cuda_buffer, the one owner of the CUDA memory programs, tests and benchmarks give
// their own kernels: every kind round-trips through a kernel, zero() clears, moves hand the
// memory over, and copies past the end are refused. Skips without a GPU.
#include <bam/detail/cuda_try.hpp>
#include <bam/error.hpp>
#include <bam/host/memory/cuda_buffer.hpp>
#include <bam/host/memory/cuda_memory.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

// GoogleTest's TEST() declares a registration member nvcc reports as unreferenced.
#pragma nv_diag_suppress 177

namespace {

using bam::host::cuda_allocation;
using bam::host::cuda_buffer;

__global__ void add_one(std::uint32_t* v, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) v[i] += 1;
}

class CudaBuffer : public ::testing::TestWithParam<cuda_allocation> {
 protected:
  void SetUp() override {
    if (!bam::host::cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(CudaBuffer, AKernelSeesWhatWasUploadedAndTheHostWhatItWrote) {
  constexpr std::size_t n = 10'000;
  cuda_buffer<std::uint32_t> b(n, GetParam());
  EXPECT_EQ(b.size(), n);
  EXPECT_EQ(b.bytes(), n * sizeof(std::uint32_t));
  EXPECT_EQ(b.where(), GetParam());
  std::vector<std::uint32_t> in(n);
  std::iota(in.begin(), in.end(), 7u);
  b.upload(in);
  add_one<<<(n + 255) / 256, 256>>>(b.data(), n);
  BAM_CUDA_TRY(cudaGetLastError());
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<std::uint32_t> out(n);
  b.download(out);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] + 1) << "element " << i;
}

TEST_P(CudaBuffer, ZeroClearsEveryElement) {
  cuda_buffer<std::uint64_t> b(4096, GetParam());
  b.upload(std::vector<std::uint64_t>(4096, ~0ull));
  b.zero();
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<std::uint64_t> out(4096, 1);
  b.download(out);
  EXPECT_EQ(std::count(out.begin(), out.end(), 0ull), 4096);
}

TEST_P(CudaBuffer, PartialCopiesLandAtTheirOffset) {
  cuda_buffer<std::uint32_t> b(8, GetParam());
  b.zero();
  const std::vector<std::uint32_t> three{1, 2, 3};
  b.upload(three, 5);
  std::vector<std::uint32_t> out(8);
  b.download(out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{0, 0, 0, 0, 0, 1, 2, 3}));
  std::vector<std::uint32_t> two(2);
  b.download(two, 6);
  EXPECT_EQ(two, (std::vector<std::uint32_t>{2, 3}));
}

TEST_P(CudaBuffer, CopiesPastTheEndAreRefused) {
  cuda_buffer<std::uint32_t> b(8, GetParam());
  std::vector<std::uint32_t> four(4);
  EXPECT_THROW(b.upload(four, 5), bam::invalid_argument);
  EXPECT_THROW(b.download(four, 5), bam::invalid_argument);
  EXPECT_THROW(b.upload(four, ~std::size_t{0}), bam::invalid_argument);
  EXPECT_NO_THROW(b.upload(four, 4));
}

TEST_P(CudaBuffer, MovesHandTheMemoryOverAndReserveKeepsTheKind) {
  cuda_buffer<std::uint32_t> a(16, GetParam());
  std::uint32_t* const p = a.data();
  cuda_buffer<std::uint32_t> b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 16u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(a.size(), 0u);
  b.reserve(8);
  EXPECT_EQ(b.data(), p) << "reserve below the size keeps the allocation";
  b.reserve(32);
  EXPECT_EQ(b.size(), 32u);
  EXPECT_EQ(b.where(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Kinds, CudaBuffer,
                         ::testing::Values(cuda_allocation::vram, cuda_allocation::managed, cuda_allocation::pinned),
                         [](const auto& info) {
                           switch (info.param) {
                             case cuda_allocation::vram: return std::string("vram");
                             case cuda_allocation::managed: return std::string("managed");
                             case cuda_allocation::pinned: return std::string("pinned");
                           }
                           return std::string("unknown");
                         });

TEST(CudaBufferEmpty, HoldsNoMemory) {
  const cuda_buffer<float> b;
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
  const cuda_buffer<float> none(0);  // no CUDA call: works without a device too
  EXPECT_EQ(none.data(), nullptr);
}

}  // namespace
