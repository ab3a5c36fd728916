// SPDX-License-Identifier: Apache-2.0
#include <bam/page_cache.hpp>

#include <bam/host/controller.hpp>
#include <bam/host/memory/device_copy.hpp>
#include <bam/nvme/completion.hpp>

#include "host/io_error.hpp"
#include "host/page_cache_flush.hpp"
#include "host/queue_recovery.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace bam {

namespace {
constexpr std::uint32_t stats_shards = 128;  // by SM on the GPU, by thread on the host

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }
}  // namespace

/// Every allocation of the cache. Tables and slots are on the side that drives the queues.
struct page_cache::buffers {
  dma_buffer slots, states, tags, clock, admission, stats, table_refs, placements, pairs, first_of;
  dma_buffer frames, frame_lists, frame_prps, slot_lists, slot_prps, errors, histogram;
  std::vector<dma_buffer> tables;
};

page_cache::page_cache(std::vector<host::controller*> controllers, memory_resource& memory,
                       page_cache_options options)
    : controllers_(std::move(controllers)), memory_(&memory), options_(options), b_(std::make_unique<buffers>()) {
  BAM_EXPECTS(!controllers_.empty(), "page_cache: no controllers given");
  BAM_EXPECTS(options_.page_bytes >= 512 && (options_.page_bytes & (options_.page_bytes - 1)) == 0,
              "page_cache: page_bytes must be a power of two of at least 512, got " + std::to_string(options_.page_bytes));
  BAM_EXPECTS(options_.max_arrays >= 1 && options_.max_arrays < cache::max_ranges,
              "page_cache: max_arrays must be in 1.." + std::to_string(cache::max_ranges - 1));
  n_slots_ = std::uint32_t(std::min<std::size_t>(options_.cache_bytes / options_.page_bytes, cache::page_entry::max_slots));
  BAM_EXPECTS(n_slots_ >= 2, "page_cache: cache_bytes " + std::to_string(options_.cache_bytes) +
                                 " holds fewer than two pages of " + std::to_string(options_.page_bytes));
  on_gpu_ = controllers_[0]->driver() == host::io_driver::gpu && memory_->has_device_memory();
  // A warp may want 32 distinct pages at once (cache::admission_ref).
  BAM_EXPECTS(!on_gpu_ || n_slots_ >= 32, "page_cache: cache_bytes " + std::to_string(options_.cache_bytes) +
                                             " holds " + std::to_string(n_slots_) + " pages of " +
                                             std::to_string(options_.page_bytes) +
                                             " bytes; a GPU cache needs at least 32 (a warp's distinct pages)");
  for (const auto* c : controllers_) {
    BAM_EXPECTS(c->driver() == controllers_[0]->driver(), "page_cache: controllers are driven from different sides");
    BAM_EXPECTS(c->max_transfer_bytes() == 0 || c->max_transfer_bytes() >= options_.page_bytes,
                "page_cache: page_bytes " + std::to_string(options_.page_bytes) + " exceeds controller " +
                    std::to_string(c->index()) + "'s maximum transfer (MDTS) of " +
                    std::to_string(c->max_transfer_bytes()) + " bytes");
    // A warp reserves up to 32 consecutive tickets at once (nvme_backend::finish_reads); a
    // ticket waits for the one `depth` before it, which must belong to an earlier reservation.
    // (Host lane groups must likewise be smaller than the depth.)
    BAM_EXPECTS(!on_gpu_ || c->queue_depth() > 32, "page_cache: controller " + std::to_string(c->index()) + "'s queue depth " +
                                           std::to_string(c->queue_depth()) +
                                           " must exceed 32 (a warp's reads are submitted together)");
    depth_ = std::max(depth_, c->queue_depth());
    n_pairs_ += std::uint32_t(c->io_queues().size());
  }
  const memory_kind side = on_gpu_ ? memory_kind::device : memory_kind::host;
  auto alloc = [&](std::size_t bytes) { return memory_->allocate(std::max<std::size_t>(bytes, 64), side, 4096); };
  auto ptr = [&](const dma_buffer& b) { return on_gpu_ ? b.device() : b.host(); };

  // Slots and their state.
  b_->slots = alloc(std::size_t{n_slots_} * options_.page_bytes);
  b_->states = alloc(std::size_t{n_slots_} * sizeof(std::uint32_t));
  b_->tags = alloc(std::size_t{n_slots_} * sizeof(std::uint64_t));
  b_->clock = alloc(sizeof(std::uint64_t));
  b_->admission = alloc(sizeof(std::uint64_t));
  b_->stats = alloc(cache::stats_ref<>::words(options_.max_arrays, stats_shards) * sizeof(std::uint64_t));
  b_->table_refs = alloc(options_.max_arrays * sizeof(cache::page_table_ref<>));
  b_->placements = alloc(options_.max_arrays * sizeof(range_placement));
  b_->errors = alloc(sizeof(device_error));
  b_->histogram = alloc(nvme_backend::latency_buckets * sizeof(std::uint64_t));
  const std::vector<cache::page_table_ref<>> empty_tables(options_.max_arrays);
  host::copy_to(b_->table_refs, 0, empty_tables.data(), empty_tables.size() * sizeof(empty_tables[0]));

  // Queue pairs of every controller, grouped by controller.
  std::vector<queues::queue_pair_ref<>> pairs;
  std::vector<std::uint32_t> first_of{0};
  for (const auto* c : controllers_) {
    pairs.insert(pairs.end(), c->io_queues().begin(), c->io_queues().end());
    first_of.push_back(std::uint32_t(pairs.size()));
  }
  b_->pairs = alloc(pairs.size() * sizeof(pairs[0]));
  b_->first_of = alloc(first_of.size() * sizeof(first_of[0]));
  host::copy_to(b_->pairs, 0, pairs.data(), pairs.size() * sizeof(pairs[0]));
  host::copy_to(b_->first_of, 0, first_of.data(), first_of.size() * sizeof(first_of[0]));

  nvme_backend::storage s{};
  s.queues = queues::queue_set_ref<>(reinterpret_cast<const queues::queue_pair_ref<>*>(ptr(b_->pairs)),
                                     reinterpret_cast<const std::uint32_t*>(ptr(b_->first_of)),
                                     std::uint32_t(controllers_.size()));
  s.ranges = reinterpret_cast<const range_placement*>(ptr(b_->placements));
  s.data.queue_depth = depth_;
  s.data.page_bytes = std::uint32_t(options_.page_bytes);
  s.controller_base = controllers_[0]->index();
  s.command_timeout_ns = std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(options_.timeout).count());
  s.errors = reinterpret_cast<device_error*>(ptr(b_->errors));
  s.latency_histogram = options_.latency_histogram ? reinterpret_cast<std::uint64_t*>(ptr(b_->histogram)) : nullptr;

  // Where the controllers put data: pinned frames (one per queue pair and command id), or the
  // slots themselves. PRPs are built once here, for the controllers' memory page size.
  const std::size_t mps = controllers_[0]->page_bytes();
  const std::size_t list_bytes = queues::prp_list_bytes(0, options_.page_bytes, mps);
  auto build = [&](const dma_buffer& data, std::size_t count, dma_buffer& lists, dma_buffer& prps) {
    if (list_bytes) lists = memory_->allocate(count * list_bytes, memory_kind::host, 4096);
    std::vector<queues::prp_pair> out(count);
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t base = i * options_.page_bytes;
      auto* list = list_bytes ? reinterpret_cast<std::uint64_t*>(lists.host() + i * list_bytes) : nullptr;
      out[i] = queues::build_prps([&](std::size_t o) { return data.bus_at(base + o); }, options_.page_bytes, mps, list,
                                  list_bytes ? lists.bus_at(i * list_bytes) : 0);
    }
    prps = alloc(count * sizeof(queues::prp_pair));
    host::copy_to(prps, 0, out.data(), count * sizeof(queues::prp_pair));
  };
  if (options_.peer_to_peer) {
    BAM_EXPECTS(b_->slots.bus_reachable(),
                "page_cache: peer_to_peer needs slot memory the controllers can reach (the bam kernel module "
                "built with NVIDIA_SRC_DIR pins VRAM for them); this memory resource gave none");
    build(b_->slots, n_slots_, b_->slot_lists, b_->slot_prps);
    s.data.slot_prps = reinterpret_cast<const queues::prp_pair*>(ptr(b_->slot_prps));
  } else {
    const std::size_t frame_bytes = std::size_t{n_pairs_} * depth_ * options_.page_bytes;
    BAM_EXPECTS(frame_bytes <= options_.max_frame_bytes,
                "page_cache: pinned frames for " + std::to_string(n_pairs_) + " queue pairs x " + std::to_string(depth_) +
                    " entries x " + std::to_string(options_.page_bytes) + "-byte pages = " + mib(frame_bytes) +
                    " exceed max_frame_bytes (" + mib(options_.max_frame_bytes) +
                    "); lower controller_options::queue_depth or io_queue_pairs, or raise max_frame_bytes");
    b_->frames = memory_->allocate(frame_bytes, memory_kind::host, 4096);
    BAM_EXPECTS(b_->frames.device() != nullptr || !on_gpu_, "page_cache: frames are not mapped into the GPU");
    build(b_->frames, std::size_t{n_pairs_} * depth_, b_->frame_lists, b_->frame_prps);
    s.data.frames = on_gpu_ ? b_->frames.device() : b_->frames.host();
    s.data.frame_prps = reinterpret_cast<const queues::prp_pair*>(ptr(b_->frame_prps));
  }
  backend_ = nvme_backend(s);
  recovery_ = std::make_unique<host::queue_recovery>(controllers_);
}

page_cache::~page_cache() = default;

page_cache::page_cache(page_cache&& other) noexcept = default;

page_cache& page_cache::operator=(page_cache&& other) noexcept {
  if (this != &other) {
    // The members' own order of destruction (the recovery thread stops first, buffers go last)
    // is what shutting this cache down needs, so end it as a whole, then move `other` in.
    std::destroy_at(this);
    std::construct_at(this, std::move(other));
  }
  return *this;
}

std::vector<recovery_event> page_cache::take_recoveries() { return recovery_->take_events(); }

page_cache::cache_type page_cache::ref() const {
  auto ptr = [&](const dma_buffer& b) { return on_gpu_ ? b.device() : b.host(); };
  cache::cache_storage<> st;
  st.slot_states = {reinterpret_cast<std::uint32_t*>(ptr(b_->states)), n_slots_};
  st.slot_tags = {reinterpret_cast<std::uint64_t*>(ptr(b_->tags)), n_slots_};
  st.slot_data = {ptr(b_->slots), std::size_t{n_slots_} * options_.page_bytes};
  st.clock_hand = reinterpret_cast<std::uint64_t*>(ptr(b_->clock));
  st.admission = reinterpret_cast<std::uint64_t*>(ptr(b_->admission));
  st.ranges = {reinterpret_cast<const cache::page_table_ref<>*>(ptr(b_->table_refs)), options_.max_arrays};
  if (options_.statistics) {
    st.stats = {reinterpret_cast<std::uint64_t*>(ptr(b_->stats)),
                cache::stats_ref<>::words(options_.max_arrays, stats_shards)};
  }
  const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.timeout);
  return cache_type(st, cache::cache_options{options_.page_bytes, std::uint64_t(timeout.count())}, backend_);
}

device_error* page_cache::errors() const {
  return reinterpret_cast<device_error*>(on_gpu_ ? b_->errors.device() : b_->errors.host());
}

std::uint32_t page_cache::map_range(const std::string& name, std::uint32_t nsid, std::uint64_t start_lba,
                                    std::uint64_t bytes) {
  BAM_EXPECTS(names_.size() < options_.max_arrays,
              "page_cache::map(" + name + "): all " + std::to_string(options_.max_arrays) +
                  " arrays of this cache are in use (page_cache_options::max_arrays)");
  BAM_EXPECTS(bytes > 0, "page_cache::map(" + name + "): empty array");
  const auto& ns0 = controllers_[0]->namespace_by_id(nsid);
  BAM_EXPECTS(options_.page_bytes % ns0.block_size == 0,
              "page_cache::map(" + name + "): page size " + std::to_string(options_.page_bytes) +
                  " is not a multiple of namespace " + std::to_string(nsid) + "'s block size " +
                  std::to_string(ns0.block_size));
  const std::uint32_t width = std::uint32_t(controllers_.size());
  const std::uint64_t pages = (bytes + options_.page_bytes - 1) / options_.page_bytes;
  BAM_EXPECTS(pages < cache::max_pages, "page_cache::map(" + name + "): " + std::to_string(pages) + " pages is too many");
  const std::uint32_t bpp = std::uint32_t(options_.page_bytes / ns0.block_size);
  const std::uint64_t pages_per_controller = (pages + width - 1) / width;
  for (const auto* c : controllers_) {
    const auto& ns = c->namespace_by_id(nsid);
    BAM_EXPECTS(ns.block_size == ns0.block_size, "page_cache::map(" + name + "): namespace " + std::to_string(nsid) +
                                                     " has different block sizes on different controllers");
    BAM_EXPECTS(start_lba <= ns.n_blocks && pages_per_controller * bpp <= ns.n_blocks - start_lba,
                "page_cache::map(" + name + "): " + std::to_string(bytes) + " bytes from LBA " +
                    std::to_string(start_lba) + " do not fit namespace " + std::to_string(nsid) + " of controller " +
                    std::to_string(c->index()) + " (" + std::to_string(ns.n_blocks) + " blocks of " +
                    std::to_string(ns.block_size) + " bytes)");
  }
  const auto id = std::uint32_t(names_.size());
  b_->tables.push_back(memory_->allocate(std::max<std::uint64_t>(pages * sizeof(std::uint32_t), 64),
                                        on_gpu_ ? memory_kind::device : memory_kind::host, 4096));
  auto* entries = reinterpret_cast<std::uint32_t*>(on_gpu_ ? b_->tables.back().device() : b_->tables.back().host());
  const cache::page_table_ref<> table(cuda::std::span<std::uint32_t>(entries, pages));
  const range_placement placement{nsid, bpp, start_lba, 0, width};
  host::copy_to(b_->placements, id * sizeof(range_placement), &placement, sizeof placement);
  host::copy_to(b_->table_refs, id * sizeof(table), &table, sizeof table);
  names_.push_back(name);
  nsids_.push_back(nsid);
  return id;
}

void page_cache::flush(stream_handle stream) {
  std::vector<std::uint32_t> nsids = nsids_;
  std::sort(nsids.begin(), nsids.end());
  nsids.erase(std::unique(nsids.begin(), nsids.end()), nsids.end());
  const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.timeout);
  const status result =
      host::detail::flush_cache(ref(), backend_, nsids, std::uint64_t(timeout.count()), on_gpu_, stream);
  check(stream);
  if (result != status::ok) throw error(std::string("page_cache::flush: ") + to_string(result));
}

void page_cache::check(stream_handle stream) {
  device_error e{};
  host::copy_from(&e, b_->errors, 0, sizeof e, stream);
  if (e.claimed == 0) return;
  const device_error cleared{};
  host::copy_to(b_->errors, 0, &cleared, sizeof cleared, stream);
  host::throw_device_error(e, e.range < names_.size() ? "'" + names_[e.range] + "'" : "#" + std::to_string(e.range));
}

array_stats page_cache::stats(std::uint32_t array_id, stream_handle stream) const {
  BAM_EXPECTS(array_id < names_.size(), "page_cache::stats: no array " + std::to_string(array_id));
  std::vector<std::uint64_t> words(cache::stats_ref<>::words(options_.max_arrays, stats_shards));
  host::copy_from(words.data(), b_->stats, 0, words.size() * sizeof(std::uint64_t), stream);
  const cache::stats_ref<> view({words.data(), words.size()}, options_.max_arrays);
  return array_stats{names_[array_id], view.of_range(array_id)};
}

array_stats page_cache::total_stats(stream_handle stream) const {
  std::vector<std::uint64_t> words(cache::stats_ref<>::words(options_.max_arrays, stats_shards));
  host::copy_from(words.data(), b_->stats, 0, words.size() * sizeof(std::uint64_t), stream);
  const cache::stats_ref<> view({words.data(), words.size()}, options_.max_arrays);
  return array_stats{"(all arrays)", view.total()};
}

std::vector<std::uint64_t> page_cache::latency_histogram(stream_handle stream) const {
  std::vector<std::uint64_t> h(nvme_backend::latency_buckets);
  host::copy_from(h.data(), b_->histogram, 0, h.size() * sizeof(h[0]), stream);
  return h;
}

void page_cache::reset_stats(stream_handle stream) {
  const std::vector<std::uint64_t> zeros(cache::stats_ref<>::words(options_.max_arrays, stats_shards));
  host::copy_to(b_->stats, 0, zeros.data(), zeros.size() * sizeof(zeros[0]), stream);
  const std::vector<std::uint64_t> h(nvme_backend::latency_buckets);
  host::copy_to(b_->histogram, 0, h.data(), h.size() * sizeof(h[0]), stream);
}

}  // namespace bam
