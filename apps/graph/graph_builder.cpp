// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/graph_builder.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <span>
#include <vector>

#include "apps/graph/csr_writer.hpp"
#include "apps/graph/error.hpp"
#include "apps/graph/gap_random.hpp"
#include "apps/graph/huge_array.hpp"
#include "apps/common/parallel.hpp"

namespace bam::graph {
namespace {

/// Serializes progress callbacks and counts finished units of the current phase.
class progress_reporter {
 public:
  explicit progress_reporter(const std::function<void(const build_progress&)>& fn) : fn_(fn) {}

  void start(std::string phase, std::uint64_t total) {
    std::lock_guard lock(mutex_);
    phase_ = std::move(phase);
    total_ = total;
    done_ = 0;
    if (fn_) fn_({phase_, 0, total_});
  }
  void advance(std::uint64_t units = 1) {
    if (!fn_) return;
    std::lock_guard lock(mutex_);
    done_ += units;
    fn_({phase_, done_, total_});
  }

 private:
  const std::function<void(const build_progress&)>& fn_;
  std::mutex mutex_;
  std::string phase_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
};

std::uint64_t default_memory_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::uint64_t{4} << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) / 2;
}

/// What the first pass learns about the source.
struct scan_result {
  std::vector<std::uint64_t> chunk_first_edge;  ///< size num_chunks + 1; last = edge count
  std::uint64_t id_end = 0;                     ///< largest id + 1, or 0 without edges
  bool counted = false;                         ///< degrees filled in the same pass
};

/// Neighbor entry while a bucket is sorted: ordering by (v, w) puts the lightest duplicate first.
template <class Id>
struct weighted_entry {
  Id v;
  weight_t w;
  friend bool operator<(const weighted_entry& a, const weighted_entry& b) {
    return a.v != b.v ? a.v < b.v : a.w < b.w;
  }
};

template <class Id>
Id entry_id(Id e) {
  return e;
}
template <class Id>
Id entry_id(const weighted_entry<Id>& e) {
  return e.v;
}

class builder {
 public:
  builder(const edge_source& source, const std::filesystem::path& out, const build_options& options)
      : source_(source),
        out_(out),
        options_(options),
        threads_(options.threads == 0 ? apps::default_thread_count() : options.threads),
        weighted_(options.weights == weight_policy::gap ||
                  (options.weights == weight_policy::keep && source.has_weights())),
        symmetric_(options.symmetrize || source.implies_reverse()),
        progress_(options.progress),
        buffers_(threads_) {}

  build_result run() {
    const scan_result scan = scan_and_count();
    chunk_first_edge_ = scan.chunk_first_edge;
    const std::uint64_t n = source_.declared_vertices().value_or(scan.id_end);
    if (scan.id_end > n) {
      throw graph_error(fmt::format("{}: vertex id {} is not below the declared {} vertices",
                                    source_.name(), scan.id_end - 1, n));
    }
    n_ = n;
    if (!scan.counted) {
      degrees_ = huge_array<std::uint64_t>(n);
      count_degrees();
    }
    const csr_shape shape{n, weighted_, symmetric_, options_.id_bytes};
    csr_writer writer(out_, shape, threads_);
    const std::uint64_t n_buckets = writer.id_bytes() == 4 ? write_buckets<std::uint32_t>(writer)
                                                           : write_buckets<std::uint64_t>(writer);
    progress_.start("finish", 1);
    build_result result{writer.finish(), chunk_first_edge_.back(), n_buckets};
    progress_.advance();
    return result;
  }

 private:
  /// Pass 1: edge count per chunk and the largest id; with an id bound, degrees too.
  scan_result scan_and_count() {
    const std::uint64_t n_chunks = source_.num_chunks();
    const std::optional<std::uint64_t> bound = source_.id_bound();
    scan_result scan;
    scan.counted = bound.has_value();
    if (scan.counted) degrees_ = huge_array<std::uint64_t>(*bound);
    std::vector<std::uint64_t> counts(n_chunks);
    std::vector<std::uint64_t> thread_id_end(threads_, 0);
    progress_.start("read", n_chunks);
    apps::parallel_for(n_chunks, threads_, [&](std::uint64_t c, unsigned t) {
      std::vector<raw_edge>& edges = buffers_[t];
      source_.read_chunk(c, edges);
      counts[c] = edges.size();
      std::uint64_t id_end = thread_id_end[t];
      for (const raw_edge& e : edges) {
        id_end = std::max({id_end, e.u + 1, e.v + 1});
        if (scan.counted) {
          if (e.u >= *bound || e.v >= *bound) {
            throw graph_error(fmt::format("{}: edge ({}, {}) has an id not below {}",
                                          source_.name(), e.u, e.v, *bound));
          }
          count_edge(e);
        }
      }
      thread_id_end[t] = id_end;
      progress_.advance();
    });
    scan.chunk_first_edge.resize(n_chunks + 1, 0);
    for (std::uint64_t c = 0; c < n_chunks; ++c) {
      scan.chunk_first_edge[c + 1] = scan.chunk_first_edge[c] + counts[c];
    }
    scan.id_end = *std::max_element(thread_id_end.begin(), thread_id_end.end());
    return scan;
  }

  /// Adds the list entries edge e will make to its endpoints' degrees (ids below degrees_.size()).
  void count_edge(const raw_edge& e) {
    if (e.u == e.v) return;  // self-loops are dropped
    std::atomic_ref(degrees_[e.u]).fetch_add(1, std::memory_order_relaxed);
    if (symmetric_) std::atomic_ref(degrees_[e.v]).fetch_add(1, std::memory_order_relaxed);
  }

  /// Pass 2 (sources without an id bound): degrees once the vertex count is known.
  void count_degrees() {
    progress_.start("count", source_.num_chunks());
    apps::parallel_for(source_.num_chunks(), threads_, [&](std::uint64_t c, unsigned t) {
      source_.read_chunk(c, buffers_[t]);
      for (const raw_edge& e : buffers_[t]) count_edge(e);
      progress_.advance();
    });
  }

  /// Vertex ranges whose raw entries fit the budget; a vertex is never split.
  std::vector<std::uint64_t> bucket_bounds(std::uint64_t entry_bytes) const {
    const std::uint64_t budget =
        options_.memory_budget_bytes != 0 ? options_.memory_budget_bytes : default_memory_budget();
    constexpr std::uint64_t per_vertex_bytes = 3 * sizeof(std::uint64_t);  // start, cursor, degree
    std::vector<std::uint64_t> bounds{0};
    std::uint64_t used = 0;
    for (std::uint64_t u = 0; u < n_; ++u) {
      const std::uint64_t cost = degrees_[u] * entry_bytes + per_vertex_bytes;
      if (used + cost > budget && u > bounds.back()) {
        bounds.push_back(u);
        used = 0;
      }
      used += cost;
    }
    if (n_ > 0) bounds.push_back(n_);
    return bounds;
  }

  template <class Id>
  std::uint64_t write_buckets(csr_writer& writer) {
    if (weighted_) return write_buckets_of<Id, weighted_entry<Id>>(writer);
    return write_buckets_of<Id, Id>(writer);
  }

  template <class Id, class Entry>
  std::uint64_t write_buckets_of(csr_writer& writer) {
    const std::vector<std::uint64_t> bounds = bucket_bounds(sizeof(Entry));
    const std::uint64_t n_buckets = bounds.size() - 1;
    for (std::uint64_t b = 0; b < n_buckets; ++b) {
      const std::string tag = n_buckets == 1 ? "" : fmt::format(" {}/{}", b + 1, n_buckets);
      build_bucket<Id, Entry>(writer, bounds[b], bounds[b + 1], tag);
    }
    return n_buckets;
  }

  /// Fills, cleans and writes vertices [lo, hi).
  template <class Id, class Entry>
  void build_bucket(csr_writer& writer, std::uint64_t lo, std::uint64_t hi,
                    const std::string& tag) {
    const std::uint64_t n_local = hi - lo;
    huge_array<std::uint64_t> start(n_local + 1);
    for (std::uint64_t i = 0; i < n_local; ++i) start[i + 1] = start[i] + degrees_[lo + i];
    huge_array<std::uint64_t> cursor(n_local);
    std::copy(start.begin(), start.end() - 1, cursor.begin());
    huge_array<Entry> entries(start[n_local]);

    progress_.start("fill" + tag, source_.num_chunks());
    apps::parallel_for(source_.num_chunks(), threads_, [&](std::uint64_t c, unsigned t) {
      std::vector<raw_edge>& edges = buffers_[t];
      source_.read_chunk(c, edges);
      gap::weight_sequence gap_weights(chunk_first_edge_[c]);
      for (const raw_edge& e : edges) {
        const weight_t w = options_.weights == weight_policy::gap ? gap_weights.next() : e.w;
        if (e.u == e.v) continue;
        if (e.u >= lo && e.u < hi) {
          const std::uint64_t i = e.u - lo;
          store<Id>(entries.data(), claim(cursor[i], start[i + 1]), e.v, w);
        }
        if (symmetric_ && e.v >= lo && e.v < hi) {
          const std::uint64_t i = e.v - lo;
          store<Id>(entries.data(), claim(cursor[i], start[i + 1]), e.u, w);
        }
      }
      progress_.advance();
    });
    for (std::uint64_t i = 0; i < n_local; ++i) {
      if (cursor[i] != start[i + 1]) {
        throw graph_error(
            fmt::format("{}: the input changed while it was being read (vertex {} "
                        "got fewer edges than counted)",
                        source_.name(), lo + i));
      }
    }

    // Clean each vertex's list (GAP's SquishCSR): sort, then keep the first of equal ids.
    std::vector<std::uint64_t> kept(n_local);
    progress_.start("sort" + tag, n_local);
    constexpr std::uint64_t grain = 1u << 12;
    apps::parallel_for_ranges(n_local, grain, threads_, [&](std::uint64_t a, std::uint64_t z, unsigned) {
      for (std::uint64_t i = a; i < z; ++i) {
        Entry* first = entries.data() + start[i];
        Entry* last = entries.data() + start[i + 1];
        std::sort(first, last);
        kept[i] =
            static_cast<std::uint64_t>(std::unique(first, last,
                                                   [](const Entry& x, const Entry& y) {
                                                     return entry_id<Id>(x) == entry_id<Id>(y);
                                                   }) -
                                       first);
      }
      progress_.advance(z - a);
    });
    write_cleaned<Id, Entry>(writer, entries.data(), start, kept, tag);
  }

  /// Claims the next slot of a vertex's list; a source that replays differently is refused
  /// rather than allowed to write past the list.
  std::uint64_t claim(std::uint64_t& cursor, std::uint64_t end) const {
    const std::uint64_t pos = std::atomic_ref(cursor).fetch_add(1, std::memory_order_relaxed);
    if (pos >= end) {
      throw graph_error(
          fmt::format("{}: the input changed while it was being read (a vertex got "
                      "more edges than counted)",
                      source_.name()));
    }
    return pos;
  }

  template <class Id>
  static void store(Id* entries, std::uint64_t pos, std::uint64_t v, weight_t) {
    entries[pos] = static_cast<Id>(v);
  }
  template <class Id>
  static void store(weighted_entry<Id>* entries, std::uint64_t pos, std::uint64_t v, weight_t w) {
    entries[pos] = {static_cast<Id>(v), w};
  }

  /// Streams the kept prefix of every list to the writer through bounded staging buffers.
  template <class Id, class Entry>
  void write_cleaned(csr_writer& writer, const Entry* entries,
                     const huge_array<std::uint64_t>& start, const std::vector<std::uint64_t>& kept,
                     const std::string& tag) {
    constexpr std::uint64_t staging_entries = std::uint64_t{1} << 24;
    constexpr std::uint64_t grain = 1u << 12;
    const std::uint64_t n_local = kept.size();
    std::vector<Id> ids;
    std::vector<weight_t> weights;
    std::vector<std::uint64_t> out_pos;
    progress_.start("write" + tag, n_local);
    for (std::uint64_t a = 0; a < n_local;) {
      // Vertices [a, z) fill at most one staging buffer (or one vertex that alone is larger).
      std::uint64_t z = a;
      std::uint64_t total = 0;
      out_pos.clear();
      while (z < n_local && (z == a || total + kept[z] <= staging_entries)) {
        out_pos.push_back(total);
        total += kept[z++];
      }
      ids.resize(total);
      if (weighted_) weights.resize(total);
      apps::parallel_for_ranges(z - a, grain, threads_, [&](std::uint64_t p, std::uint64_t q, unsigned) {
        for (std::uint64_t i = p; i < q; ++i) {
          const Entry* src = entries + start[a + i];
          for (std::uint64_t j = 0; j < kept[a + i]; ++j) {
            if constexpr (std::is_same_v<Entry, Id>) {
              ids[out_pos[i] + j] = src[j];
            } else {
              ids[out_pos[i] + j] = src[j].v;
              weights[out_pos[i] + j] = src[j].w;
            }
          }
        }
      });
      writer.append<Id>(std::span(kept).subspan(a, z - a), ids, weights);
      progress_.advance(z - a);
      a = z;
    }
  }

  const edge_source& source_;
  const std::filesystem::path& out_;
  const build_options& options_;
  unsigned threads_;
  bool weighted_;
  bool symmetric_;
  progress_reporter progress_;
  std::vector<std::vector<raw_edge>> buffers_;  ///< one chunk buffer per thread
  huge_array<std::uint64_t> degrees_;  ///< raw entries per vertex (before cleaning); >= n_ long
  std::uint64_t n_ = 0;                ///< vertices of the output
  std::vector<std::uint64_t> chunk_first_edge_;
};

}  // namespace

build_result build_csr_file(const edge_source& source, const std::filesystem::path& out,
                            const build_options& options) {
  return builder(source, out, options).run();
}

}  // namespace bam::graph
