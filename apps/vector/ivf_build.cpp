// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/ivf_build.hpp"

#include "apps/vector/ivf_format.hpp"
#include "apps/common/mapped_file.hpp"
#include "apps/common/parallel.hpp"

#include <bam/error.hpp>
#include <bam/host/drivers/posix_io.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace bam::vec {

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Stores one float row as `T` at `out`; u8 values are rounded and must lie in [0, 255].
template <class T>
void store_row(const float* row, std::uint32_t dim, std::byte* out, std::uint64_t row_id, const vector_source& src) {
  T* dst = reinterpret_cast<T*>(out);
  for (std::uint32_t j = 0; j < dim; ++j) {
    if constexpr (std::is_same_v<T, float>) {
      dst[j] = row[j];
    } else if constexpr (std::is_same_v<T, half>) {
      dst[j] = float_to_half(row[j]);
    } else {
      const float r = std::nearbyint(row[j]);
      if (!(r >= 0.0f && r <= 255.0f))
        throw bam::invalid_argument(src.name() + ": row " + std::to_string(row_id) + " element " + std::to_string(j) +
                                    " = " + std::to_string(row[j]) + " does not fit u8 storage (0..255)");
      dst[j] = std::uint8_t(r);
    }
  }
}

/// Calls fn(first, n, rows) for consecutive chunks of the source.
template <class Fn>
void for_chunks(const vector_source& src, std::uint64_t chunk, Fn fn) {
  std::vector<float> buf(std::size_t(std::min(chunk, src.rows())) * src.dim());
  for (std::uint64_t first = 0; first < src.rows(); first += chunk) {
    const std::uint64_t n = std::min(chunk, src.rows() - first);
    src.read(first, n, buf.data());
    fn(first, n, buf.data());
  }
}

/// Writes the file at `tmp`: header, centroids, offsets, then a second pass over the source
/// that puts each row at the next free row of its list (so lists keep the source's order).
void write_index(const vector_source& base, const std::string& tmp, const ivf_header& h, const matrix<float>& centroids,
                 const std::vector<std::uint64_t>& offsets, const std::vector<std::uint32_t>& labels,
                 const build_options& o, const progress_fn& progress) {
  const std::uint64_t n = base.rows();
  const std::uint32_t dim = base.dim();
  const apps::mapped_file out = apps::mapped_file::create(tmp, h.file_bytes);
  std::byte* file = out.bytes().data();
  std::memcpy(file, &h, sizeof h);
  std::memcpy(file + h.centroids.offset, centroids.data.data(), h.centroids.bytes);
  std::memcpy(file + h.list_offsets.offset, offsets.data(), h.list_offsets.bytes);
  auto* ids = reinterpret_cast<std::int64_t*>(file + h.ids.offset);
  std::byte* vectors = file + h.vectors.offset;
  const std::size_t row_bytes = std::size_t(dim) * scalar_bytes(o.storage);
  std::vector<std::uint64_t> cursor(offsets.begin(), offsets.end() - 1);  // next free row per list
  std::vector<std::uint64_t> where;
  for_chunks(base, o.chunk_rows, [&](std::uint64_t first, std::uint64_t count, const float* rows) {
    where.resize(count);
    for (std::uint64_t i = 0; i < count; ++i) {  // in row order: lists keep source order
      where[i] = cursor[labels[first + i]]++;
      ids[where[i]] = std::int64_t(first + i);
    }
    visit_scalar(o.storage, [&](auto tag) {
      using T = decltype(tag);
      apps::parallel_for_ranges(count, 1024, 0, [&](std::uint64_t b, std::uint64_t e, unsigned) {
        for (std::uint64_t i = b; i < e; ++i)
          store_row<T>(rows + i * dim, dim, vectors + where[i] * row_bytes, first + i, base);
      });
    });
    report(progress, "write", first + count, n);
  });
  out.sync();
}

}  // namespace

build_engines cpu_engines() {
  return {[](const matrix<float>& s) { return make_cpu_kmeans(s); },
          [](const matrix<float>& c, vec::metric m) { return make_cpu_assigner(c, m); }, "cpu"};
}

build_summary build_ivf(const vector_source& base, const std::string& path, const build_options& o,
                        const build_engines& engines, const progress_fn& progress) {
  const std::uint64_t n = base.rows();
  const std::uint32_t dim = base.dim();
  BAM_EXPECTS(o.lists > 0, "build: --lists must be positive");
  BAM_EXPECTS(o.lists <= n, "build: " + std::to_string(o.lists) + " lists exceed the " + std::to_string(n) +
                                " vectors of " + base.name());
  BAM_EXPECTS(o.chunk_rows > 0, "build: chunk_rows must be positive");
  build_summary s;
  s.rows = n;
  s.dim = dim;
  s.lists = o.lists;
  s.sample_rows = o.sample_rows ? std::min(o.sample_rows, n) : std::min<std::uint64_t>(n, 256ull * o.lists);
  BAM_EXPECTS(s.sample_rows >= o.lists, "build: the k-means sample (" + std::to_string(s.sample_rows) +
                                            " rows) must hold at least one row per list (" + std::to_string(o.lists) + ")");

  auto t = std::chrono::steady_clock::now();
  matrix<float> sample(s.sample_rows, dim);
  const auto picked = sample_indices(n, s.sample_rows, o.seed);
  for (std::uint64_t i = 0; i < picked.size(); ++i) base.read(picked[i], 1, sample.row(i).data());
  s.seconds_sample = since(t);

  t = std::chrono::steady_clock::now();
  const auto engine = engines.kmeans(sample);
  const kmeans_result km = train_kmeans(sample, *engine, {o.lists, o.iterations, o.seed, o.max_cluster_ratio}, progress);
  s.kmeans_objective = km.objective;
  s.balance_splits = km.splits;
  s.seconds_kmeans = since(t);

  t = std::chrono::steady_clock::now();
  std::vector<std::uint32_t> labels(n);
  {
    const auto assign = engines.assign(km.centroids, o.metric);
    for_chunks(base, o.chunk_rows, [&](std::uint64_t first, std::uint64_t count, const float* rows) {
      assign->assign(rows, count, labels.data() + first);
      report(progress, "assign", first + count, n);
    });
  }
  std::vector<std::uint64_t> offsets(std::size_t(o.lists) + 1, 0);
  for (const std::uint32_t l : labels) ++offsets[l + 1];
  for (std::uint32_t l = 0; l < o.lists; ++l) offsets[l + 1] += offsets[l];
  s.min_list = n;
  double sum_sq = 0;
  for (std::uint32_t l = 0; l < o.lists; ++l) {
    const std::uint64_t size = offsets[l + 1] - offsets[l];
    s.min_list = std::min(s.min_list, size);
    s.max_list = std::max(s.max_list, size);
    sum_sq += double(size) * double(size);
  }
  s.imbalance = sum_sq * o.lists / (double(n) * double(n));
  s.seconds_assign = since(t);

  t = std::chrono::steady_clock::now();
  const ivf_header h = make_ivf_header(o.metric, o.storage, dim, n, o.lists);
  s.file_bytes = h.file_bytes;
  const std::string tmp = path + ".tmp";
  try {
    write_index(base, tmp, h, km.centroids, offsets, labels, o, progress);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    host::throw_errno(path, "cannot rename " + tmp + " into place", errno);
  s.seconds_write = since(t);
  return s;
}

}  // namespace bam::vec
