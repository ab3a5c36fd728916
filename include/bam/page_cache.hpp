// SPDX-License-Identifier: Apache-2.0
// bam::page_cache: the host-side owner of a GPU page cache over one or more NVMe controllers.
// It allocates the slots (VRAM), the state tables, a page table per mapped array, the pinned
// frames the controllers write into, and hands out bam::array<T> views for kernels.
#pragma once

#include <bam/array.hpp>
#include <bam/device_error.hpp>
#include <bam/error.hpp>
#include <bam/memory.hpp>
#include <bam/recovery_event.hpp>
#include <bam/stream.hpp>

#include "backend/nvme_backend.hpp"
#include "cache/cache_ref.hpp"
#include "cache/stats.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bam {

namespace host {
class controller;
class queue_recovery;
}

struct page_cache_options {
  std::size_t page_bytes = 4096;           ///< bytes per page: a multiple of every namespace's block size
  /// Slot memory (VRAM): cache_bytes / page_bytes slots, at least 32 on a GPU (a warp's
  /// distinct pages). Any grid makes progress on any such cache: warps that
  /// must wait for misses are admitted only while their pages fit (cache::admission_ref), so a
  /// small cache is slower, never failing.
  std::size_t cache_bytes = std::size_t{1} << 30;
  std::chrono::milliseconds timeout{10'000};        ///< bound on every wait of one access
  /// Upper bound on pinned frame memory (queue pairs x queue depth x page size); construction
  /// fails with a message naming the knobs when it would be exceeded.
  std::size_t max_frame_bytes = std::size_t{4} << 30;
  /// Controllers DMA straight into the VRAM slots (needs slot memory with bus addresses: the
  /// bam kernel module with GPU pinning); otherwise data lands in pinned frames and is copied.
  bool peer_to_peer = false;
  std::uint32_t max_arrays = 64;  ///< arrays that can be mapped on this cache
  bool latency_histogram = true;  ///< record each command's latency (one atomic per miss)
  /// Count accesses, hits, misses, ... (one relaxed atomic on a per-SM line per lookup); off,
  /// every counter reads zero.
  bool statistics = true;
};

/// What page_cache::map() maps: `count` elements stored from `start_lba` of namespace `nsid`.
struct mapping {
  std::string name;             ///< names the array in statistics and error messages
  std::uint32_t nsid = 1;       ///< namespace id, the same on every controller
  std::uint64_t start_lba = 0;  ///< first LBA of the array (on each controller of the stripe)
  std::uint64_t count = 0;      ///< elements of the array
};

/// Statistics of one array (or of the whole cache), as read back from the device.
struct array_stats {
  std::string name;
  cache::cache_stats counts;
  [[nodiscard]] double hit_rate() const {
    return counts.accesses ? double(counts.hits + counts.coalesced) / double(counts.accesses) : 0.0;
  }
};

class page_cache {
 public:
  using cache_type = cache::cache_ref<nvme_backend>;

  /**
   * @param controllers the controllers pages are striped over (all driven from the same side:
   * the GPU, or the CPU in CPU-only builds); they must outlive the cache
   * @param memory where slots, tables (memory_kind::device) and frames (memory_kind::host) come from
   * @throw bam::invalid_argument for bad options, naming the option and the value, or when
   * another page_cache's recovery watches one of the controllers (one cache per controller at a
   * time)
   * @note Starts the cache's recovery thread (see take_recoveries()).
   */
  page_cache(std::vector<host::controller*> controllers, memory_resource& memory, page_cache_options options = {});
  ~page_cache();
  page_cache(const page_cache&) = delete;
  page_cache& operator=(const page_cache&) = delete;
  /// Moves the cache, its buffers and its recovery thread; arrays mapped before stay valid. A
  /// moved-from cache may only be destroyed or assigned to.
  page_cache(page_cache&& other) noexcept;
  /// Shuts this cache down (as the destructor does), then takes `other`'s.
  page_cache& operator=(page_cache&& other) noexcept;

  /**
   * @brief Maps `m.count` elements of T stored from `m.start_lba` of namespace `m.nsid` as an
   * array named `m.name`. Pages are striped over the controllers: page p is on controller
   * p % n, at LBA start_lba + (p / n) * blocks_per_page (one controller: the plain layout).
   * @throw bam::invalid_argument when the namespace is missing, too small, or the page size does
   * not fit T or the block size
   */
  template <class T>
  [[nodiscard]] array<T> map(const mapping& m) {
    BAM_EXPECTS(options_.page_bytes % sizeof(T) == 0,
                "page_cache::map(" + m.name + "): element size " + std::to_string(sizeof(T)) +
                    " does not divide the page size " + std::to_string(options_.page_bytes));
    const std::uint32_t id = map_range(m.name, m.nsid, m.start_lba, m.count * sizeof(T));
    return array<T>(ref(), id, m.count, errors());
  }

  /// The device view over every array mapped so far.
  [[nodiscard]] cache_type ref() const;
  [[nodiscard]] std::size_t page_bytes() const noexcept { return options_.page_bytes; }
  [[nodiscard]] std::uint32_t n_slots() const noexcept { return n_slots_; }
  [[nodiscard]] std::uint32_t n_arrays() const noexcept { return std::uint32_t(names_.size()); }

  // Host operations take the CUDA stream they are ordered with (stream.hpp): each waits for the
  // work queued on that stream before the call, and for nothing else on the device. The default
  // stream is the CUDA default stream; in a build without the CUDA runtime the only one.

  /**
   * @brief Writes every dirty page back and sends NVMe Flush to every namespace mapped, as work
   * on `stream`, and returns once it is done.
   * @note Covers every store queued on `stream` before the call (and every kernel that finished
   * before it). Before flush(), written pages may sit dirty in VRAM: evictions write some of
   * them back, in no particular order.
   * @throw like check()
   */
  void flush(stream_handle stream = nullptr);

  /// Throws the first failure device code recorded since the last check (with its context:
  /// array, index or page, controller, queue, command, LBA, NVMe status), and clears it. Covers
  /// the work queued on `stream` before the call.
  void check(stream_handle stream = nullptr);

  /// Statistics as of the work queued on `stream` before the call.
  [[nodiscard]] array_stats stats(std::uint32_t array_id, stream_handle stream = nullptr) const;
  [[nodiscard]] array_stats total_stats(stream_handle stream = nullptr) const;
  /// Commands per latency bucket: bucket b counts latencies in [2^b, 2^(b+1)) ns.
  [[nodiscard]] std::vector<std::uint64_t> latency_histogram(stream_handle stream = nullptr) const;
  void reset_stats(stream_handle stream = nullptr);
  /**
   * @brief The queue pairs the cache's recovery took back from failure since the last call
   * (oldest first), and forgets them.
   * @note A command that never completes fails only the accesses waiting on it; its queue pair
   * goes out of service, and once no thread uses it a host thread of the cache re-creates its
   * queues at the controller (a controller reset as the last resort) and hands it back to the
   * next access (docs/architecture.md, "Recovery").
   */
  [[nodiscard]] std::vector<recovery_event> take_recoveries();

  /// Every array's statistics, the total and the latency histogram, as JSON.
  [[nodiscard]] std::string stats_json(stream_handle stream = nullptr) const;
  /// The same as a compact table for people.
  [[nodiscard]] std::string stats_table(stream_handle stream = nullptr) const;

 private:
  struct buffers;
  std::uint32_t map_range(const std::string& name, std::uint32_t nsid, std::uint64_t start_lba, std::uint64_t bytes);
  [[nodiscard]] device_error* errors() const;
  [[nodiscard]] bool on_gpu() const noexcept { return on_gpu_; }

  std::vector<host::controller*> controllers_;
  memory_resource* memory_;
  page_cache_options options_;
  bool on_gpu_ = false;
  std::uint32_t n_slots_ = 0;
  std::uint32_t depth_ = 0;
  std::uint32_t n_pairs_ = 0;
  std::vector<std::string> names_;
  std::vector<std::uint32_t> nsids_;
  std::unique_ptr<buffers> b_;
  nvme_backend backend_;
  /// Last: its thread starts once the queue pairs are in the backend, and stops first.
  std::unique_ptr<host::queue_recovery> recovery_;
};

}  // namespace bam
