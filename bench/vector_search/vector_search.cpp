// SPDX-License-Identifier: Apache-2.0
// bench/vector_search: recall@10 and queries/s over nprobe for IVF-Flat with the vectors read
// through bam (page cache at given fractions of the vectors, emulated NVMe controller serving a
// RAM namespace), against the same IVF with every vector in VRAM, brute force in VRAM (bam's
// GEMM path and PyTorch), and FAISS IVF-Flat on the CPU with the same lists. Ground truth
// (exact top-100) is computed on the GPU and checked against FAISS. Writes the report (table +
// JSON with a headline) and a recall-vs-QPS PNG into --results.
#include "bench/common/eager_loading.hpp"
#include "bench/common/report.hpp"
#include "bench/vector_search/peers.hpp"
#include "bench/vector_search/series.hpp"

#include "apps/common/python_script.hpp"
#include "apps/vector/bam_store.hpp"
#include "apps/vector/formats.hpp"
#include "apps/vector/generator.hpp"
#include "apps/vector/ivf_build.hpp"
#include "apps/vector/recall.hpp"

#include "apps/common/storage_cli.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/host/memory/gpu_mapping.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace {

using namespace bam;
using namespace bam::bench::vector;
namespace gpu = bam::vec::gpu;

struct config {
  std::string base, queries, work = "/tmp/bam-vector-search", results = "bench/results", storage = "f32";
  std::uint32_t lists = 1024, k = 10, gt_k = 100, threads = 16;
  apps::storage_flags bam{.queues = 132, .depth = 256, .workers = 14};  ///< bam's storage; cache sizes: `fractions`
  std::vector<std::uint32_t> nprobe{1, 2, 4, 8, 16, 32, 64, 128};
  std::vector<double> fractions{0.10, 0.25};
  std::uint64_t batch = 10000, large_rows = 0;
  std::vector<std::uint64_t> sweep_batches{2500, 5000};  ///< also run at the headline nprobe
  std::uint32_t large_dim = 128, large_lists = 4096, look_ahead_pages = 0;
  unsigned reps = 3;
  bool peers = true;
  /// bam over a RAM copy of `index`, the cache holding `fraction` of its vectors.
  [[nodiscard]] apps::storage_options store_options(const vec::ivf_index& index, double fraction) const {
    apps::storage_flags s = bam;
    s.cache_fraction = fraction;
    return s.options(apps::storage_backend::ram, true, index.header().vectors.bytes);
  }
};

/// Page-locks the queries, as a serving system's query buffers are, so that every series uploads
/// its batches by DMA, not through the driver's pageable staging copy (whose time varied by
/// milliseconds between runs on the H200 and would dominate the VRAM series).
host::gpu_host_mapping pin(const vec::matrix<float>& m) {
  return {reinterpret_cast<std::byte*>(const_cast<float*>(m.data.data())), m.data.size() * sizeof(float), false};
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string percent(double f) { return std::to_string(int(f * 100 + 0.5)) + "%"; }

/// Adds a series' points to the curves table (and its batches to the cache profile).
void record(bench::report& rep, const std::string& series, double fraction, const std::vector<point>& pts) {
  for (const auto& p : pts) {
    rep.add_row("curves", {{"series", series}, {"nprobe", p.nprobe}, {"qps", p.qps}, {"recall_at_10", p.recall_at_10},
                           {"seconds", p.median_seconds}, {"upload_seconds", p.upload_seconds},
                           {"scan_seconds", p.scan_seconds}});
    if (fraction > 0)
      for (const auto& b : p.batches)
        rep.add_row("cache_profile", {{"series", series}, {"cache", percent(fraction)}, {"nprobe", p.nprobe}, {"batch", b.batch},
                                      {"queries", b.queries}, {"seconds", b.seconds}, {"scan_seconds", b.scan_seconds},
                                      {"hit_rate", b.hit_rate},
                                      {"misses", b.misses}, {"mib_read", double(b.bytes_read) / (1 << 20)},
                                      {"io_p50_us_le", b.io_p50_us}, {"io_p99_us_le", b.io_p99_us}});
  }
}

/// A bam series: its cache fraction and its points.
struct bam_series_points {
  double fraction = 0;
  std::vector<point> points;
};

/**
 * For each bam series (cache 10-25%, with and without look-ahead) the first point (smallest
 * nprobe) with recall@10 >= 0.9, compared with VRAM IVF and FAISS at that nprobe; the headline
 * is the series whose point has the highest QPS, and `by_series` lists them all.
 */
nlohmann::json headline(const std::map<std::string, bam_series_points>& bam_series, const std::vector<point>& vram,
                        const nlohmann::json& faiss) {
  nlohmann::json best, all = nlohmann::json::array();
  for (const auto& [name, series] : bam_series) {
    const auto& pts = series.points;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      if (pts[i].recall_at_10 < 0.9) continue;
      nlohmann::json h = {{"series", name},
                          {"cache_fraction", series.fraction},
                          {"nprobe", pts[i].nprobe},
                          {"recall_at_10", pts[i].recall_at_10},
                          {"qps", pts[i].qps},
                          {"qps_vram_ivf", vram[i].qps},
                          {"qps_vs_vram_ivf", pts[i].qps / vram[i].qps}};
      for (const auto& row : faiss)
        if (row["nprobe"] == pts[i].nprobe) {
          h["qps_faiss_cpu"] = row["qps"];
          h["qps_vs_faiss_cpu"] = pts[i].qps / double(row["qps"]);
        }
      h["targets"] = {{"recall_at_10_ge_0_9", true},
                      {"half_of_vram_ivf", pts[i].qps >= 0.5 * vram[i].qps},
                      {"ten_x_faiss_cpu", h.contains("qps_vs_faiss_cpu") && double(h["qps_vs_faiss_cpu"]) >= 10.0}};
      all.push_back(h);
      if (best.is_null() || double(h["qps"]) > double(best["qps"])) best = h;
      break;
    }
  }
  if (best.is_null()) return {{"recall_at_10", nullptr}, {"note", "no bam point reached recall@10 >= 0.9"}};
  best["by_series"] = all;
  return best;
}

/// A clustered collection larger than the Fashion-MNIST set (RAM namespace), bam at 10% and 25%.
void large_section(bench::report& rep, const config& c, const series_plan& plan) {
  const vec::cluster_options o{c.large_rows, c.large_dim, std::max(1u, c.large_lists / 2), 7, 0.15f, 1.5f};
  const vec::clustered_source base(o), queries_src({10000, c.large_dim, o.clusters, 7, 0.15f, 1.5f}, 1);
  const auto queries = vec::read_all(queries_src);
  const auto pinned_queries = pin(queries);
  const std::string path = c.work + "/large.ivf";
  auto t = std::chrono::steady_clock::now();
  vec::build_options bo;
  bo.lists = c.large_lists;
  bo.iterations = 10;
  const auto built = vec::build_ivf(base, path, bo, gpu::engines());
  const double build_s = seconds_since(t);
  const vec::ivf_index index(path);
  const gpu::vram_vectors all(index);
  const auto truth = gpu::exact_search(&all, index.size(), index.dim(), index.metric(), index.ids(), queries, 10, path)
                         .id_matrix();
  gpu::ivf_searcher searcher(index);
  const auto bam_points = [&](double fraction, bool ahead) {
    vec::bam_store store(index, c.store_options(index, fraction));
    series_plan p = plan;
    p.prefetch_next = ahead;
    return run_series(searcher, store.vectors<float>(), &store.cache(), queries, truth, p);
  };
  const auto tenth = bam_points(0.10, false), quarter = bam_points(0.25, true);
  const auto vram_pts = run_series(searcher, &all, nullptr, queries, truth, plan);
  for (std::size_t i = 0; i < vram_pts.size(); ++i)
    rep.add_row("large", {{"rows", index.size()}, {"dim", index.dim()}, {"lists", index.n_lists()},
                          {"vector_gib", double(index.header().vectors.bytes) / (1 << 30)}, {"nprobe", vram_pts[i].nprobe},
                          {"bam_cache_10pct_qps", tenth[i].qps}, {"bam_cache_25pct_look_ahead_qps", quarter[i].qps},
                          {"vram_qps", vram_pts[i].qps}, {"recall_at_10", vram_pts[i].recall_at_10},
                          {"build_seconds", build_s}, {"imbalance", built.imbalance}});
}

}  // namespace

int main(int argc, char** argv) {
  bam::bench::load_kernels_eagerly();
  CLI::App app{"vector_search: IVF-Flat through bam vs VRAM, brute force and FAISS on the CPU"};
  config c;
  app.add_option("--base", c.base, "base vectors (.npy/.fvecs/.bvecs)")->required();
  app.add_option("--queries", c.queries, "query vectors (.npy: the peers read it too)")->required();
  app.add_option("--work", c.work, "scratch directory (index, ground truth)");
  app.add_option("--results", c.results, "where the report JSON and PNG go");
  app.add_option("--lists", c.lists, "IVF lists");
  app.add_option("--storage", c.storage, "f32, f16 or u8");
  app.add_option("--nprobe", c.nprobe, "nprobe values")->delimiter(',');
  app.add_option("--cache-fractions", c.fractions, "bam cache sizes as fractions of the vectors")->delimiter(',');
  app.add_option("--batch", c.batch, "queries per batch (every series)");
  app.add_option("--sweep-batches", c.sweep_batches, "smaller batches to run at the headline nprobe (VRAM and bam)")
      ->delimiter(',');
  app.add_option("--reps", c.reps, "timed repetitions (after one warm-up); the median counts");
  apps::add_storage_options(app, c.bam, apps::cache_size_flags::without);
  app.add_option("--look-ahead-pages", c.look_ahead_pages, "look-ahead series: pages read ahead of the scan (0: automatic, search_options::prefetch_next)");
  app.add_option("--threads", c.threads, "FAISS CPU threads");
  app.add_option("--large-rows", c.large_rows, "also run a clustered collection of this many vectors (0: skip)");
  app.add_option("--large-dim", c.large_dim, "its dimension");
  app.add_option("--large-lists", c.large_lists, "its lists");
  app.add_flag("!--no-peers", c.peers, "skip the Python peers (FAISS, PyTorch)");
  CLI11_PARSE(app, argc, argv);
  try {
    std::filesystem::create_directories(c.work);
    std::filesystem::create_directories(c.results);
    bench::report rep("vector_search", argc, argv);
    cudaDeviceProp prop{};
    BAM_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
    rep.set_device(prop.name, {{"sms", prop.multiProcessorCount}, {"vram_gib", double(prop.totalGlobalMem) / (1 << 30)}});

    const auto base = vec::read_vectors(c.base);
    const auto queries = vec::read_vectors(c.queries);
    const auto pinned_queries = pin(queries);
    std::fprintf(stderr, "base %llu x %u, queries %llu\n", (unsigned long long)base.rows, base.dim,
                 (unsigned long long)queries.rows);

    // Ground truth: exact top-100 on the GPU (the base in VRAM, tiled GEMM).
    const gpu::vram_vectors base_vram(base);
    auto t = std::chrono::steady_clock::now();
    const auto gt = gpu::exact_search(&base_vram, base.rows, base.dim, vec::metric::l2, {}, queries, c.gt_k, c.base);
    const double gt_seconds = seconds_since(t);
    const std::string gt_path = c.work + "/gt.ivecs";
    vec::write_ids(gt_path, gt.id_matrix());
    const auto truth = gt.id_matrix();

    // The index, built on the GPU.
    const std::string index_path = c.work + "/index.ivf";
    vec::build_options bo;
    bo.lists = c.lists;
    bo.storage = vec::parse_scalar(c.storage);
    t = std::chrono::steady_clock::now();
    const auto built = vec::build_ivf(vec::matrix_source(base, c.base), index_path, bo, gpu::engines());
    rep.add_row("build", {{"rows", built.rows}, {"dim", built.dim}, {"lists", built.lists}, {"storage", c.storage},
                          {"seconds", seconds_since(t)}, {"kmeans_seconds", built.seconds_kmeans},
                          {"min_list", built.min_list}, {"max_list", built.max_list}, {"imbalance", built.imbalance},
                          {"balance_splits", built.balance_splits}, {"groundtruth_seconds", gt_seconds}});
    const vec::ivf_index index(index_path);
    gpu::ivf_searcher searcher(index);
    const series_plan plan{c.nprobe, c.k, c.batch, c.reps, false, c.look_ahead_pages};

    std::fprintf(stderr, "IVF, all vectors in VRAM:\n");
    const gpu::vram_vectors vram(index);
    const auto vram_pts = run_series(searcher, &vram, nullptr, queries, truth, plan);
    record(rep, "IVF all in VRAM", 0, vram_pts);

    // Smaller batches at the first nprobe reaching recall@10 >= 0.9: a batch streams its probed
    // lists through the cache once, so the batch size sets how often the collection is re-read.
    std::uint32_t sweep_nprobe = 0;
    for (const auto& p : vram_pts)
      if (sweep_nprobe == 0 && p.recall_at_10 >= 0.9) sweep_nprobe = p.nprobe;
    std::map<std::uint64_t, double> vram_sweep_qps;
    if (sweep_nprobe != 0)
      for (const std::uint64_t b : c.sweep_batches)
        vram_sweep_qps[b] = run_series(searcher, &vram, nullptr, queries, truth, {{sweep_nprobe}, c.k, b, c.reps})[0].qps;

    std::map<std::string, bam_series_points> bam_series;
    for (const double f : c.fractions) {
      vec::bam_store store(index, c.store_options(index, f));
      for (const bool ahead : {false, true}) {
        const std::string name = "bam, cache " + percent(f) + (ahead ? ", look-ahead" : "");
        std::fprintf(stderr, "IVF through %s:\n", name.c_str());
        series_plan p = plan;
        p.prefetch_next = ahead;
        const auto pts = vec::visit_scalar(index.scalar(), [&](auto tag) {
          return run_series(searcher, store.vectors<decltype(tag)>(), &store.cache(), queries, truth, p);
        });
        bam_series[name] = {f, pts};
        record(rep, name, f, pts);
        for (const auto& [b, vram_qps] : vram_sweep_qps) {
          const auto q = vec::visit_scalar(index.scalar(), [&](auto tag) {
            return run_series(searcher, store.vectors<decltype(tag)>(), &store.cache(), queries, truth,
                              {{sweep_nprobe}, c.k, b, c.reps, ahead, c.look_ahead_pages})[0];
          });
          rep.add_row("batch_sweep", {{"series", name}, {"nprobe", sweep_nprobe}, {"batch", b}, {"qps", q.qps},
                                      {"vram_qps", vram_qps}, {"qps_vs_vram_ivf", q.qps / vram_qps},
                                      {"recall_at_10", q.recall_at_10}});
        }
      }
      rep.add_row("cache", {{"cache", percent(f)}, {"slots", store.cache().n_slots()},
                            {"mib", double(store.cache().n_slots()) * double(c.bam.page_bytes) / (1 << 20)}});
    }

    // Brute force in VRAM (bam's exact path: tiled GEMM), and exact search through bam.
    t = std::chrono::steady_clock::now();
    const auto bf = gpu::exact_search(&base_vram, base.rows, base.dim, vec::metric::l2, {}, queries, c.k, c.base);
    const double bf_s = seconds_since(t);
    rep.add_row("brute_force", {{"method", "bam exact (tiled GEMM), VRAM"}, {"qps", double(queries.rows) / bf_s},
                                {"recall_at_10", vec::recall_at(10, bf, truth)}, {"seconds", bf_s}});
    {
      vec::bam_store store(index, c.store_options(index, 0.25));
      t = std::chrono::steady_clock::now();
      const auto ex = vec::visit_scalar(index.scalar(), [&](auto tag) {
        return gpu::exact_search(store.vectors<decltype(tag)>(), index.size(), index.dim(), index.metric(), index.ids(),
                                 queries, c.k, index_path);
      });
      const double ex_s = seconds_since(t);
      store.cache().check();
      rep.add_row("brute_force", {{"method", "bam exact (tiled GEMM), through bam, cache 25%"},
                                  {"qps", double(queries.rows) / ex_s}, {"recall_at_10", vec::recall_at(10, ex, truth)},
                                  {"seconds", ex_s}});
    }

    nlohmann::json peers = nlohmann::json::object();
    if (c.peers) {
      std::fprintf(stderr, "peers (FAISS on %u CPU threads, PyTorch):\n", c.threads);
      peers = run_peers({index_path, c.queries, gt_path, c.work + "/peers.json", c.nprobe, c.k, c.threads, c.reps});
      for (const auto& row : peers.value("faiss_ivf", nlohmann::json::array()))
        rep.add_row("curves", {{"series", "FAISS IVF-Flat CPU (" + std::to_string(c.threads) + " threads)"},
                               {"nprobe", row["nprobe"]}, {"qps", row["qps"]}, {"recall_at_10", row["recall_at_10"]},
                               {"seconds", row["seconds"]}});
      if (peers.contains("torch_brute_force")) {
        const auto& tb = peers["torch_brute_force"];
        rep.add_row("brute_force", {{"method", "PyTorch GEMM + topk, VRAM"}, {"qps", tb["qps"]},
                                    {"recall_at_10", tb["recall_at_10"]}, {"seconds", tb["seconds"]}});
      }
      if (peers.contains("faiss_gt_check")) rep.notes()["groundtruth_vs_faiss"] = peers["faiss_gt_check"];
      if (!peers.value("errors", nlohmann::json::array()).empty()) rep.notes()["peer_errors"] = peers["errors"];
    }
    rep.headline() = headline(bam_series, vram_pts, peers.value("faiss_ivf", nlohmann::json::array()));
    rep.notes()["setup"] = "bam: emulated NVMe controller (" + std::to_string(c.bam.workers) + " host threads, " +
                           std::to_string(c.bam.queues) + " queue pairs x " + std::to_string(c.bam.depth) +
                           ") serving a RAM namespace holding the index file; " +
                           std::to_string(c.bam.page_bytes >> 10) + " KiB pages; every series runs the same "
                           "GPU kernels with " + std::to_string(c.batch) + " queries per batch, median of " +
                           std::to_string(c.reps) + " timed runs after a warm-up; QPS includes query upload (from "
                           "page-locked memory) and result download";

    if (c.large_rows > 0) {
      try {
        std::fprintf(stderr, "large clustered collection: %llu x %u\n", (unsigned long long)c.large_rows, c.large_dim);
        large_section(rep, c, plan);
      } catch (const std::exception& e) {
        rep.notes()["large_error"] = e.what();
      }
    }
    rep.print();
    const std::string json = rep.write(c.results);
    std::printf("wrote %s\n", json.c_str());
    const std::string png = json.substr(0, json.size() - 5) + ".png";
    if (apps::run_python_script("plot_curve.py", {json, png}) == 0) std::printf("wrote %s\n", png.c_str());
    else std::fprintf(stderr, "plot failed: %s\n", apps::python_command("plot_curve.py", {json, png}).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vector_search: %s\n", e.what());
    return 1;
  }
}
