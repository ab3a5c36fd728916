// SPDX-License-Identifier: Apache-2.0
// bam-knn search: IVF (or exact) search of a query file over an index, for each nprobe, with
// the vectors read through bam (page cache over an emulated NVMe controller serving the index
// file), from VRAM, or from memory on CPU threads; recall against a ground-truth file, QPS,
// cache hit rate; JSON summary and an optional recall-vs-QPS plot.
#include "apps/bam-knn/common.hpp"
#include "apps/common/gpu_query.hpp"
#include "apps/common/python_script.hpp"
#include "apps/vector/bam_store.hpp"
#include "apps/vector/cpu_search.hpp"
#include "apps/vector/formats.hpp"
#include "apps/vector/recall.hpp"
#include "apps/vector/rows_view.hpp"
#if BAM_WITH_CUDA_RUNTIME
#include "apps/vector/gpu_search.hpp"
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <variant>

namespace bam::knn {

namespace {

using cached_vectors = std::variant<std::monostate, array<float>, array<vec::half>, array<std::uint8_t>>;

/// The vector section through the cache, mapped once.
cached_vectors map_vectors(vec::bam_store& store, vec::scalar_type t) {
  return vec::visit_scalar(t, [&](auto tag) -> cached_vectors { return store.vectors<decltype(tag)>(); });
}

/// Runs `plot_curve.py summary.json out.png`; throws when it fails.
void plot(const std::string& json, const std::string& png) {
  if (apps::run_python_script("plot_curve.py", {json, png}) != 0)
    throw bam::error("plotting failed: " + apps::python_command("plot_curve.py", {json, png}));
}

}  // namespace

int run_search(const search_args& a) {
  const vec::ivf_index index(a.index);
  const vec::matrix<float> q = open_queries(a.queries, a.generate_queries, a.base);
  std::optional<vec::matrix<std::int64_t>> gt;
  if (!a.gt.empty()) {
    gt = vec::read_ids(a.gt);
    BAM_EXPECTS(gt->rows == q.rows, a.gt + ": " + std::to_string(gt->rows) + " ground-truth rows for " +
                                        std::to_string(q.rows) + " queries");
    BAM_EXPECTS(gt->dim >= a.k, a.gt + ": " + std::to_string(gt->dim) + " neighbours per query, fewer than k = " +
                                    std::to_string(a.k));
  }
  const bool gpu = apps::use_gpu(a.cpu);
  BAM_EXPECTS(a.source == "bam" || a.source == "vram" || a.source == "memory",
              "--source must be bam, vram or memory, not '" + a.source + "'");
  BAM_EXPECTS(a.source != "vram" || gpu, "--source vram needs a GPU");
  BAM_EXPECTS(a.source != "memory" || !gpu, "--source memory runs on CPU threads: add --cpu");

  const std::uint64_t vector_bytes = index.header().vectors.bytes;
  std::unique_ptr<vec::bam_store> store;
  cached_vectors cached;
  if (a.source == "bam") {
    const auto backend = a.ram ? apps::storage_backend::ram : apps::storage_backend::file;
    store = std::make_unique<vec::bam_store>(index, a.storage.options(backend, gpu, vector_bytes));
    cached = map_vectors(*store, index.scalar());
  }
#if BAM_WITH_CUDA_RUNTIME
  std::unique_ptr<vec::gpu::ivf_searcher> searcher;
  std::unique_ptr<vec::gpu::vram_vectors> vram;
  vec::gpu::list_source src;
  if (gpu) {
    searcher = std::make_unique<vec::gpu::ivf_searcher>(index);
    if (a.source == "vram") {
      vram = std::make_unique<vec::gpu::vram_vectors>(index);
      src = vram.get();
    } else {
      std::visit([&](const auto& arr) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(arr)>, std::monostate>) src = arr;
      }, cached);
    }
  }
#endif
  // One search (exact when nprobe == 0) with the chosen engine and source.
  const auto run = [&](std::uint32_t nprobe) -> vec::search_results {
#if BAM_WITH_CUDA_RUNTIME
    if (gpu) {
      if (nprobe == 0)
        return vec::gpu::exact_search(src, index.size(), index.dim(), index.metric(), index.ids(), q, a.k, index.path(),
                                      a.batch);
      return searcher->search(q, {a.k, nprobe, a.prefetch_next, a.look_ahead_pages}, src, a.batch);
    }
#endif
    return vec::visit_scalar(index.scalar(), [&](auto tag) {
      using T = decltype(tag);
      const auto scan = [&](const auto& st) {
        if (nprobe > 0) return vec::cpu_ivf_search<T>(index, st, q, {a.k, nprobe});
        auto r = vec::cpu_exact_search<T>(st, index.size(), index.dim(), index.metric(), q, a.k, index.path());
        for (auto& id : r.ids) id = id < 0 ? id : index.ids()[std::size_t(id)];
        return r;
      };
      if (store) return scan(std::get<array<T>>(cached));
      return scan(vec::rows_view<T>(reinterpret_cast<const T*>(index.vectors().data()), index.size() * index.dim()));
    });
  };

  nlohmann::json rows = nlohmann::json::array();
  vec::search_results last;
  std::vector<std::uint32_t> plan = a.nprobe;
  if (a.exact) plan.push_back(0);
  for (const std::uint32_t nprobe : plan) {
    if (store) store->cache().reset_stats();
    const auto t0 = std::chrono::steady_clock::now();
    last = run(nprobe);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (store) store->cache().check();
    nlohmann::json row = {{"nprobe", nprobe == 0 ? nlohmann::json("exact") : nlohmann::json(nprobe)},
                          {"seconds", seconds},
                          {"qps", double(q.rows) / seconds}};
    if (gt) row["recall_at_k"] = vec::recall_at(a.k, last, *gt);
    if (store) row["cache_hit_rate"] = store->cache().total_stats().hit_rate();
    std::fprintf(stderr, "[search] nprobe %s: %.0f queries/s%s\n", row["nprobe"].dump().c_str(), double(row["qps"]),
                 gt ? (", recall@" + std::to_string(a.k) + " " + std::to_string(double(row["recall_at_k"]))).c_str() : "");
    rows.push_back(row);
  }
  if (!a.out.empty()) vec::write_ids(a.out, last.id_matrix());
  const nlohmann::json doc = {{"command", "search"},
                              {"index", a.index},
                              {"queries", q.rows},
                              {"k", a.k},
                              {"source", a.source},
                              {"device", gpu ? "gpu" : "cpu"},
                              {"vector_bytes", vector_bytes},
                              {"cache_bytes", store ? nlohmann::json(store->cache_bytes()) : nlohmann::json(nullptr)},
                              {"rows", rows}};
  emit_json(doc, a.json);
  if (!a.plot.empty()) {
    BAM_EXPECTS(!a.json.empty(), "--plot needs --json (the plot is drawn from the JSON summary)");
    plot(a.json, a.plot);
  }
  return 0;
}

}  // namespace bam::knn
