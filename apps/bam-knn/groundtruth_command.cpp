// SPDX-License-Identifier: Apache-2.0
// bam-knn groundtruth (exact top-k of the queries in the base collection, on the GPU from VRAM
// or on CPU threads) and bam-knn generate (write a clustered collection and queries to files).
#include "apps/bam-knn/common.hpp"
#include "apps/common/gpu_query.hpp"
#include "apps/vector/cpu_search.hpp"
#include "apps/vector/formats.hpp"
#include "apps/vector/rows_view.hpp"
#if BAM_WITH_CUDA_RUNTIME
#include "apps/vector/gpu_search.hpp"
#endif

#include <chrono>

namespace bam::knn {

int run_groundtruth(const groundtruth_args& a) {
  BAM_EXPECTS(!a.out.empty(), "groundtruth: give the output file with --out (.ivecs or .npy)");
  const collection base = open_base(a.base);
  const vec::matrix<float> rows = base.loaded ? vec::matrix<float>() : vec::read_all(*base.source);
  const vec::matrix<float>& b = base.loaded ? *base.loaded : rows;
  const vec::matrix<float> q = open_queries(a.queries, a.generate_queries, a.base);
  const vec::metric m = vec::parse_metric(a.metric);
  const bool gpu = apps::use_gpu(a.cpu);
  const auto t0 = std::chrono::steady_clock::now();
  vec::search_results r;
#if BAM_WITH_CUDA_RUNTIME
  if (gpu) {
    const vec::gpu::vram_vectors dev(b);
    r = vec::gpu::exact_search(&dev, b.rows, b.dim, m, {}, q, a.k, base.source->name());
  }
#endif
  if (!gpu)
    r = vec::cpu_exact_search<float>(vec::rows_view<float>(b.data.data(), b.data.size()), b.rows, b.dim, m, q, a.k,
                                     base.source->name());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  vec::write_ids(a.out, r.id_matrix());
  if (!a.distances.empty()) {
    vec::matrix<float> d(r.queries, r.k);
    d.data = r.distances;
    vec::write_vectors(a.distances, d);
  }
  emit_json({{"command", "groundtruth"},
             {"base", base.source->name()},
             {"queries", q.rows},
             {"k", a.k},
             {"metric", vec::to_string(m)},
             {"device", gpu ? "gpu" : "cpu"},
             {"seconds", seconds},
             {"out", a.out}},
            a.json);
  return 0;
}

int run_generate(const generate_args& a) {
  BAM_EXPECTS(a.base.generate > 0, "generate: --rows must be positive");
  BAM_EXPECTS(!a.out.empty(), "generate: give the output file with --out (.fvecs or .npy)");
  const collection base = open_base(a.base);
  vec::write_vectors(a.out, vec::read_all(*base.source));
  if (a.queries > 0) {
    BAM_EXPECTS(!a.queries_out.empty(), "generate: --queries needs --queries-out");
    vec::write_vectors(a.queries_out, open_queries("", a.queries, a.base));
  }
  emit_json({{"command", "generate"}, {"base", base.source->name()}, {"out", a.out}, {"queries", a.queries}}, "");
  return 0;
}

}  // namespace bam::knn
