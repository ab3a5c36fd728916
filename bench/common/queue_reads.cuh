// SPDX-License-Identifier: Apache-2.0
// The raw queue rate: GPU threads read random blocks straight through bam's queues (no cache)
// and warps verify what lands in the pinned frames. bench/queue_read sweeps it; bench/array_read
// runs it on the controller its cache uses, so the miss path is set against the same figure.
#pragma once

#include <bam/detail/clock.hpp>
#include <bam/nvme/command.hpp>
#include <bam/status.hpp>
#include <bam/synthetic.hpp>

#include "queues/queue_pair.hpp"

#include <cstdint>

namespace bam::bench {

struct device_counters {
  unsigned long long completed;
  unsigned long long failed;
  unsigned long long mismatched_words;
  unsigned long long latency_ns_sum;  ///< sampled by lane 0 of every warp
  unsigned long long latency_samples;
  unsigned int first_status;          ///< bam::status of the first failure
  unsigned int first_qid;
  unsigned long long first_lba;
};

/**
 * Every thread issues `ops` random reads of `io_bytes`. Per round, the warp takes consecutive
 * tickets on its SM's queue pair with one reservation (queue_pair_ref::reserve(n): no
 * hold-and-wait cycle between warps), each lane reads into the pinned frame of its command id
 * (frames per (pair, command id), few enough to stay in the CPU's last-level cache), and the
 * warp then reads the frames together, 16 bytes per lane per step with loads that bypass L1,
 * verifies every word and releases the command ids.
 */
__global__ void queue_read_kernel(const bam::queues::queue_pair_ref<>* pairs, std::uint32_t n_pairs, std::byte* frames,
                                  std::uint64_t frames_bus, std::uint32_t io_bytes, std::uint32_t block_bytes,
                                  std::uint64_t n_units, std::uint64_t seed, std::uint32_t ops,
                                  std::uint64_t timeout_ns, device_counters* c) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  const std::uint32_t pair = bam::detail::worker_id() % n_pairs;
  const bam::queues::queue_pair_ref<>& qp = pairs[pair];
  const std::uint32_t blocks = io_bytes / block_bytes;
  unsigned long long done = 0, bad = 0;
  for (std::uint32_t op = 0; op < ops; ++op) {
    const std::uint64_t deadline = bam::detail::now_ns() + timeout_ns;
    const std::uint64_t lba = (bam::synthetic_word(0xbeef, tid * ops + op) % n_units) * blocks;
    std::uint64_t first = 0;
    if (lane == 0) first = qp.failed() ? ~0ull : qp.reserve(32);
    first = __shfl_sync(0xffffffffu, first, 0);
    if (first == ~0ull) break;  // a wait timed out: the pair takes no more commands
    const std::uint64_t t = first + lane;
    const std::uint64_t t0 = bam::detail::now_ns();
    bam::status st = qp.wait_for_slot(t, deadline);
    const std::uint64_t frame = std::uint64_t(pair) * qp.depth() + qp.cid_of(t);
    if (st == bam::status::ok) {
      qp.write(t, bam::nvme::make_read(1, lba, blocks, frames_bus + frame * io_bytes, 0));
      st = qp.publish(t, deadline);
    }
    bool owned = false;
    if (st == bam::status::ok) {
      const auto r = qp.await(t, deadline);
      owned = r.status != bam::status::timeout;
      st = r.status;
    }
    if (st == bam::status::ok) {
      ++done;
      if (lane == 0) {
        atomicAdd(&c->latency_ns_sum, bam::detail::now_ns() - t0);
        atomicAdd(&c->latency_samples, 1ull);
      }
    } else if (atomicAdd(&c->failed, 1ull) == 0) {
      c->first_status = unsigned(st);
      c->first_qid = qp.qid();
      c->first_lba = lba;
    }
    __syncwarp();  // orders each lane's acquire of its completion before its peers' loads
    for (unsigned ok_mask = __ballot_sync(0xffffffffu, st == bam::status::ok); ok_mask != 0; ok_mask &= ok_mask - 1) {
      const unsigned j = unsigned(__ffs(ok_mask)) - 1;
      const std::uint64_t lba_j = __shfl_sync(0xffffffffu, lba, j);
      const std::uint64_t frame_j = __shfl_sync(0xffffffffu, frame, j);
      const uint4* f = reinterpret_cast<const uint4*>(frames + frame_j * io_bytes);
      for (std::uint32_t v = lane; v < io_bytes / 16; v += 32) {
        const uint4 x = __ldcv(f + v);
        const std::uint64_t w = lba_j * block_bytes / 8 + 2 * std::uint64_t(v);
        const std::uint64_t lo = (std::uint64_t(x.y) << 32) | x.x, hi = (std::uint64_t(x.w) << 32) | x.z;
        bad += (lo != bam::synthetic_word(seed, w)) + (hi != bam::synthetic_word(seed, w + 1));
      }
    }
    __syncwarp();  // every lane's loads of the frames precede their release
    if (owned) qp.release(t);
    if (__any_sync(0xffffffffu, st != bam::status::ok)) break;
  }
  atomicAdd(&c->completed, done);
  if (bad) atomicAdd(&c->mismatched_words, bad);
}

}  // namespace bam::bench
