// SPDX-License-Identifier: Apache-2.0
// bam-knn build: train the coarse quantizer and write an IVF index file.
#include "apps/bam-knn/common.hpp"
#include "apps/common/gpu_query.hpp"
#include "apps/vector/ivf_build.hpp"
#if BAM_WITH_CUDA_RUNTIME
#include "apps/vector/gpu_search.hpp"
#endif

#include <cstdio>

namespace bam::knn {

int run_build(const build_args& a) {
  BAM_EXPECTS(!a.out.empty(), "build: give the index file with --out");
  const collection base = open_base(a.base);
  vec::build_options o;
  o.lists = a.lists;
  o.metric = vec::parse_metric(a.metric);
  o.storage = vec::parse_scalar(a.storage);
  o.sample_rows = a.sample;
  o.iterations = a.iterations;
  o.seed = a.seed;
  o.max_cluster_ratio = a.max_ratio;
  const bool gpu = apps::use_gpu(a.cpu);
#if BAM_WITH_CUDA_RUNTIME
  const vec::build_engines engines = gpu ? vec::gpu::engines() : vec::cpu_engines();
#else
  const vec::build_engines engines = vec::cpu_engines();
#endif
  std::fprintf(stderr, "[build] %s: %llu x %u on the %s, %u lists, %s storage\n", base.source->name().c_str(),
               (unsigned long long)base.source->rows(), base.source->dim(), gpu ? "GPU" : "CPU", o.lists,
               a.storage.c_str());
  const vec::build_summary s = vec::build_ivf(*base.source, a.out, o, engines, stderr_progress("build"));
  emit_json({{"command", "build"},
             {"base", base.source->name()},
             {"index", a.out},
             {"engine", engines.name},
             {"rows", s.rows},
             {"dim", s.dim},
             {"lists", s.lists},
             {"metric", vec::to_string(o.metric)},
             {"storage", vec::to_string(o.storage)},
             {"sample_rows", s.sample_rows},
             {"kmeans_objective", s.kmeans_objective},
             {"balance_splits", s.balance_splits},
             {"list_sizes", {{"min", s.min_list}, {"max", s.max_list}, {"imbalance", s.imbalance}}},
             {"file_bytes", s.file_bytes},
             {"seconds",
              {{"sample", s.seconds_sample}, {"kmeans", s.seconds_kmeans}, {"assign", s.seconds_assign}, {"write", s.seconds_write}}}},
            a.json);
  return 0;
}

}  // namespace bam::knn
