// SPDX-License-Identifier: Apache-2.0
// bam::cache: the Backend concept, through which the cache moves pages to and from storage.
#pragma once

#include "cache/page_key.hpp"

#include <bam/config.hpp>
#include <bam/status.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <cstdint>

namespace bam::cache {

/// One page transfer between a slot and storage.
struct page_io {
  page_key key;                     ///< the page: range id and page index within the range
  std::uint32_t slot = 0;           ///< the slot, for backends that keep per-slot bus addresses
  cuda::std::span<std::byte> data;  ///< the slot's bytes: page_bytes of them
  std::uint64_t deadline_ns = 0;    ///< detail::now_ns() value after which to give up
};

/**
 * @brief How the cache reaches storage: `read_page` fills a slot, `write_page` stores one.
 *
 * Contract:
 * - Called by one thread: the leader of the coalesced lanes (or the evictor, or a flusher).
 *   Distinct pages of one warp are served by distinct leaders at the same time, so a backend
 *   must accept concurrent calls for distinct pages. The cache never calls it twice at once for
 *   the same page.
 * - `read_page` writes `io.data` with the page's bytes; `write_page` stores them. Where the
 *   bytes travel through (a pinned host frame copied into the slot, peer-to-peer DMA straight
 *   into VRAM, striping of pages over controllers, the range's offset on the namespace) is the
 *   backend's business; `io.key` and `io.slot` are all it gets.
 * - On return, whatever the status, the backend no longer touches `io.data`, and for `ok` the
 *   transfer is complete and visible to the calling thread (a read's bytes can be read by it; a
 *   write is durable as far as later read_page calls of any thread are concerned, given the
 *   happens-before the cache establishes between the two calls).
 * - It returns `status::timeout` rather than wait past `io.deadline_ns` (or its own limit on
 *   one command: nvme_backend bounds each command from its submission), and
 *   `status::io_error` when the transfer failed. A backend whose device may still DMA into a
 *   slot after giving up must make sure it cannot land in a reused slot (nvme_backend's frames
 *   stay reserved until the queue is deleted and re-created).
 * - `write_page` may return `status::queue_failed` when it cannot issue the write for now (no
 *   queue in service while the backend recovers): nothing was written; the cache keeps the page
 *   dirty and writes it later. A write that was lost returns only once it can no longer be
 *   performed late (nvme_backend waits for its queue's re-creation).
 *
 * The calls are const: a backend is a trivially copyable view (like queues' queue_set_ref, or a
 * test fake holding a pointer to its store), kept by value in cache_ref.
 */
template <class B>
concept backend = requires(const B& b, const page_io& io) {
  { b.read_page(io) } -> std::same_as<status>;
  { b.write_page(io) } -> std::same_as<status>;
};

/**
 * @brief A backend that performs a group's reads together: it has `write_page` as above, and
 * replaces `read_page` with a pair of calls.
 *
 * A single lane copying a page out of host memory issues many small, scattered PCIe reads; a
 * whole warp copying it issues few large ones. And lanes that hold queue resources while they
 * wait for their group can deadlock against other groups unless the group takes its resources
 * in one step. A staged backend therefore reads in two steps:
 * - `start_read(io, s)` (one lane, never waits) records the read in `s` (s.active());
 * - `finish_reads(g, s)` (collective over the lane group, every lane passing its own `s`, active
 *   or not) performs every active lane's read, moves the data into its slot and returns the
 *   lane's status.
 * The cache calls finish_reads before it publishes the slots, so no reader sees a slot before
 * its data, and never while one of the group's lanes waits for another thread's fill.
 */
template <class B>
concept staged_backend = requires(const B& b, const page_io& io, typename B::staged& s) {
  { b.write_page(io) } -> std::same_as<status>;
  { b.start_read(io, s) } -> std::same_as<status>;
  { s.active() } -> std::same_as<bool>;
};

/// What cache_ref accepts: a backend that reads one page per call, or a staged one.
template <class B>
concept page_backend = backend<B> || staged_backend<B>;

}  // namespace bam::cache
