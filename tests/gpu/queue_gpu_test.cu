// SPDX-License-Identifier: Apache-2.0
// The queue protocol driven by GPU threads (hundreds of thousands at once) against the emulated
// controller, with every byte read verified; error statuses, out-of-range LBAs and lost
// completions reach the threads as statuses. Skips itself without a GPU.
#include <bam/detail/cuda_try.hpp>
#include <bam/host/controller.hpp>
#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/host/memory/cuda_memory.hpp>
#include <bam/synthetic.hpp>

#include "queues/queue_pair.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace {

using bam::queues::queue_pair_ref;
constexpr std::uint64_t seconds = 1'000'000'000ull;

struct counters {
  unsigned long long ok, io_error, timeout, queue_failed, other, mismatched, last_sc;
};

__device__ std::uint64_t mix(std::uint64_t x) { return bam::synthetic_word(0xfeed, x); }

/// Each thread reads `ops` random `blocks`-block extents into its own frame and verifies them.
/// LBAs at or beyond `n_blocks` are requested on purpose when `overshoot` is set.
__global__ void read_verify(const queue_pair_ref<>* pairs, unsigned n_pairs, std::byte* frames, std::uint64_t bus,
                            unsigned io_bytes, unsigned block, std::uint64_t n_blocks, std::uint64_t seed,
                            unsigned ops, std::uint64_t timeout, bool overshoot, counters* c) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const queue_pair_ref<>& qp = pairs[(tid / 32) % n_pairs];
  const unsigned blocks = io_bytes / block;
  std::byte* frame = frames + tid * io_bytes;
  for (unsigned op = 0; op < ops; ++op) {
    std::uint64_t lba = mix(tid * ops + op) % (n_blocks - blocks + 1);
    if (overshoot && op % 2) lba = n_blocks - blocks + 1 + mix(op) % 8;  // crosses the end
    const auto r = qp.execute(bam::nvme::make_read(1, lba, blocks, bus + tid * io_bytes, 0), timeout);
    switch (r.status) {
      case bam::status::ok: {
        atomicAdd(&c->ok, 1ull);
        const std::size_t at = bam::synthetic_mismatch(seed, lba * block, frame, io_bytes);
        if (at != io_bytes) atomicAdd(&c->mismatched, 1ull);
        break;
      }
      case bam::status::io_error:
        atomicAdd(&c->io_error, 1ull);
        c->last_sc = r.nvme_status.sc();
        break;
      case bam::status::timeout: atomicAdd(&c->timeout, 1ull); return;
      case bam::status::queue_failed: atomicAdd(&c->queue_failed, 1ull); return;
      default: atomicAdd(&c->other, 1ull); return;
    }
  }
}

/// Writes a pattern of (tid, op) with 4 KiB writes, then reads it back.
__global__ void write_then_read(const queue_pair_ref<>* pairs, unsigned n_pairs, std::byte* frames, std::uint64_t bus,
                                unsigned block, std::uint64_t timeout, counters* c) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const queue_pair_ref<>& qp = pairs[(tid / 32) % n_pairs];
  auto* words = reinterpret_cast<std::uint64_t*>(frames + tid * 4096);
  const std::uint64_t lba = tid * (4096 / block);
  for (unsigned w = 0; w < 512; ++w) words[w] = (tid << 20) ^ w ^ 0xabcdef;
  auto r = qp.execute(bam::nvme::make_write(1, lba, 4096 / block, bus + tid * 4096, 0), timeout);
  if (!r.ok()) { atomicAdd(&c->other, 1ull); return; }
  for (unsigned w = 0; w < 512; ++w) words[w] = 0;
  r = qp.execute(bam::nvme::make_read(1, lba, 4096 / block, bus + tid * 4096, 0), timeout);
  if (!r.ok()) { atomicAdd(&c->other, 1ull); return; }
  bool same = true;
  for (unsigned w = 0; w < 512; ++w) same &= words[w] == ((tid << 20) ^ w ^ 0xabcdef);
  atomicAdd(same ? &c->ok : &c->mismatched, 1ull);
}

class QueueGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!bam::host::cuda_device_present()) GTEST_SKIP() << "no CUDA device";
    cuda_ = std::make_unique<bam::host::cuda_memory>();
  }

  /// Brings up an emulated controller over `ns` and a driver with `queues` GPU-driven pairs.
  void bring_up(std::shared_ptr<bam::host::namespace_store> ns, unsigned queues, unsigned depth, unsigned workers) {
    iommu_ = std::make_unique<bam::host::emulated_iommu>();
    dma_ = std::make_unique<bam::host::iommu_memory>(*cuda_, *iommu_);
    bam::host::emulated_controller::options eo;
    eo.n_workers = workers;
    eo.max_io_queues = std::uint16_t(queues);
    emu_ = std::make_unique<bam::host::emulated_controller>(*cuda_, *iommu_, std::vector{ns}, eo);
    bam::host::controller_options co;
    co.io_queue_pairs = queues;
    co.queue_depth = depth;
    ctrl_ = std::make_unique<bam::host::controller>(emu_->bar(), *dma_, co);
    pairs_ = cuda_->allocate(sizeof(queue_pair_ref<>) * ctrl_->io_queues().size(), bam::memory_kind::device);
    BAM_CUDA_TRY(cudaMemcpy(pairs_.device(), ctrl_->io_queues().data(), pairs_.size(), cudaMemcpyHostToDevice));
    counters_ = cuda_->allocate(sizeof(counters), bam::memory_kind::device);
  }
  const queue_pair_ref<>* pairs() const { return reinterpret_cast<const queue_pair_ref<>*>(pairs_.device()); }
  unsigned n_pairs() const { return unsigned(ctrl_->io_queues().size()); }
  counters* dev_counters() const { return reinterpret_cast<counters*>(counters_.device()); }
  counters result() const {
    counters h{};
    BAM_CUDA_TRY(cudaDeviceSynchronize());
    BAM_CUDA_TRY(cudaMemcpy(&h, counters_.device(), sizeof h, cudaMemcpyDeviceToHost));
    return h;
  }

  std::unique_ptr<bam::host::cuda_memory> cuda_;
  std::unique_ptr<bam::host::emulated_iommu> iommu_;
  std::unique_ptr<bam::host::iommu_memory> dma_;
  std::unique_ptr<bam::host::emulated_controller> emu_;
  std::unique_ptr<bam::host::controller> ctrl_;
  bam::dma_buffer pairs_, counters_;
};

}  // namespace

TEST_F(QueueGpu, HundredsOfThousandsOfThreadsReadATerabyteSyntheticNamespaceVerified) {
  constexpr std::uint64_t seed = 42;
  auto ns = std::make_shared<bam::host::synthetic_store>(
      bam::host::synthetic_store::options{512, (1ull << 40) / 512, seed, 1u << 10});
  bring_up(ns, 64, 1024, 8);
  int sms = 0;
  BAM_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned grid = unsigned(sms) * 8, block = 256;  // 270 k threads on an H200
  const std::uint64_t threads = std::uint64_t(grid) * block;
  auto frames = dma_->allocate(threads * 4096, bam::memory_kind::host);
  read_verify<<<grid, block>>>(pairs(), n_pairs(), frames.device(), frames.bus_at(0), 4096, 512, ns->n_blocks(), seed,
                               4, 60 * seconds, false, dev_counters());
  BAM_CUDA_TRY(cudaGetLastError());
  const counters c = result();
  EXPECT_EQ(c.ok, threads * 4);
  EXPECT_EQ(c.mismatched, 0u) << "a read returned bytes that differ from the namespace";
  EXPECT_EQ(c.io_error + c.timeout + c.queue_failed + c.other, 0u);
  EXPECT_GE(emu_->stats().commands, threads * 4);
}

TEST_F(QueueGpu, SanitizeSmallReadsAndWritesRoundTrip) {
  auto ns = std::make_shared<bam::host::ram_store>(512, 1u << 20);
  bring_up(ns, 4, 64, 2);
  const unsigned grid = 4, block = 64;
  auto frames = dma_->allocate(grid * block * 4096, bam::memory_kind::host);
  write_then_read<<<grid, block>>>(pairs(), n_pairs(), frames.device(), frames.bus_at(0), 512, 10 * seconds,
                                   dev_counters());
  BAM_CUDA_TRY(cudaGetLastError());
  const counters c = result();
  EXPECT_EQ(c.ok, grid * block);
  EXPECT_EQ(c.mismatched + c.other, 0u);
}

TEST_F(QueueGpu, OutOfRangeReadsReturnLbaOutOfRangeToTheThread) {
  constexpr std::uint64_t seed = 7;
  auto ns = std::make_shared<bam::host::synthetic_store>(bam::host::synthetic_store::options{512, 1u << 20, seed, 16});
  bring_up(ns, 8, 256, 2);
  const unsigned grid = 16, block = 128;
  auto frames = dma_->allocate(grid * block * 4096, bam::memory_kind::host);
  read_verify<<<grid, block>>>(pairs(), n_pairs(), frames.device(), frames.bus_at(0), 4096, 512, ns->n_blocks(), seed,
                               4, 30 * seconds, true, dev_counters());
  const counters c = result();
  EXPECT_EQ(c.ok, grid * block * 2u);
  EXPECT_EQ(c.io_error, grid * block * 2u);
  EXPECT_EQ(c.last_sc, bam::nvme::generic_status::lba_out_of_range);
  EXPECT_EQ(c.mismatched + c.timeout + c.other, 0u);
}

TEST_F(QueueGpu, InjectedMediaErrorsReachTheSubmitterAndOthersSucceed) {
  constexpr std::uint64_t seed = 9;
  auto ns = std::make_shared<bam::host::synthetic_store>(bam::host::synthetic_store::options{512, 1u << 24, seed, 16});
  bring_up(ns, 8, 256, 2);
  bam::host::fault_rule rule;
  rule.match.opcode = std::uint8_t(bam::nvme::io_opcode::read);
  rule.match.every_nth = 5;
  emu_->faults().add(rule);  // default action: unrecovered read error
  const unsigned grid = 16, block = 128;
  auto frames = dma_->allocate(grid * block * 4096, bam::memory_kind::host);
  read_verify<<<grid, block>>>(pairs(), n_pairs(), frames.device(), frames.bus_at(0), 4096, 512, ns->n_blocks(), seed,
                               5, 30 * seconds, false, dev_counters());
  const counters c = result();
  EXPECT_EQ(c.ok + c.io_error, grid * block * 5u);
  EXPECT_EQ(c.io_error, grid * block * 5u / 5);
  EXPECT_EQ(c.last_sc, bam::nvme::media_status::unrecovered_read_error);
  EXPECT_EQ(c.mismatched + c.timeout + c.other, 0u);
}

TEST_F(QueueGpu, DroppedCompletionsTimeOutInsteadOfHanging) {
  constexpr std::uint64_t seed = 11;
  auto ns = std::make_shared<bam::host::synthetic_store>(bam::host::synthetic_store::options{512, 1u << 24, seed, 16});
  bring_up(ns, 2, 64, 1);
  bam::host::fault_rule rule;
  rule.match.opcode = std::uint8_t(bam::nvme::io_opcode::read);
  rule.match.qid = 1;
  rule.action.effect = bam::host::fault_effect::drop;
  emu_->faults().add(rule);
  auto frames = dma_->allocate(64 * 4096, bam::memory_kind::host);
  read_verify<<<1, 64>>>(pairs(), n_pairs(), frames.device(), frames.bus_at(0), 4096, 512, ns->n_blocks(), seed, 2,
                         seconds / 2, false, dev_counters());
  const counters c = result();
  // Warps 0 (qid 1) time out or find their pair failed; warp 1 (qid 2) is unaffected.
  EXPECT_EQ(c.ok, 64u);
  EXPECT_EQ(c.timeout + c.queue_failed, 32u);
  EXPECT_GE(c.timeout, 1u);
  EXPECT_EQ(c.mismatched + c.io_error + c.other, 0u);
}
