// SPDX-License-Identifier: Apache-2.0
// bam-knn: IVF-Flat vector search over bam. `build` trains an index from a vector file (or the
// clustered generator) and writes it; `search` runs queries over it with the vectors read
// through bam's page cache (or VRAM / memory) for each nprobe; `groundtruth` computes exact
// neighbours; `generate` writes a clustered collection. Errors exit 1 with one clear line.
#include "apps/bam-knn/commands.hpp"

#include "apps/common/storage_cli.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

namespace {

using namespace bam::knn;

void add_base(CLI::App* app, base_options& b, bool file) {
  if (file) app->add_option("--base", b.file, "base vectors (.fvecs .bvecs .ivecs .npy)");
  app->add_option("--generate", b.generate, "instead of --base: this many clustered vectors from the generator");
  app->add_option("--dim", b.dim, "generator: dimensions")->check(CLI::Range(1, 1 << 20));
  app->add_option("--clusters", b.clusters, "generator: true clusters")->check(CLI::Range(1, 1 << 30));
  app->add_option("--spread", b.spread, "generator: standard deviation around a centre");
  app->add_option("--skew", b.skew, "generator: cluster popularity skew (1: equal)");
  app->add_option("--seed", b.seed, "generator (and k-means) seed");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bam-knn: IVF-Flat vector search with the vectors on (emulated) NVMe storage, read through bam"};
  app.require_subcommand(1);

  build_args b;
  auto* build = app.add_subcommand("build", "train the coarse quantizer and write an IVF index file");
  add_base(build, b.base, true);
  build->add_option("-o,--out", b.out, "index file to write")->required();
  build->add_option("--lists", b.lists, "inverted lists (k-means clusters)")->check(CLI::Range(1u, 1u << 24));
  build->add_option("--metric", b.metric, "l2 or ip");
  build->add_option("--storage", b.storage, "vector storage type: f32, f16 or u8");
  build->add_option("--sample", b.sample, "k-means training rows (default: 256 per list)");
  build->add_option("--iterations", b.iterations, "k-means iterations")->check(CLI::Range(1, 1000));
  build->add_option("--max-list-ratio", b.max_ratio, "split lists larger than this times the mean during training");
  build->add_option("--json", b.json, "also write the JSON summary here");
  build->add_flag("--cpu", b.cpu, "train and assign on CPU threads even when a GPU is present");

  search_args s;
  auto* search = app.add_subcommand("search", "search an index for each nprobe; recall, QPS, cache hit rate");
  search->add_option("-i,--index", s.index, "index file")->required();
  search->add_option("-q,--queries", s.queries, "query vectors");
  search->add_option("--generate-queries", s.generate_queries, "instead of --queries: rows of the generator's query stream");
  add_base(search, s.base, false);
  search->add_option("--gt", s.gt, "ground truth ids (.ivecs or .npy) for recall");
  search->add_option("-k", s.k, "neighbours per query")->check(CLI::Range(1, 1 << 20));
  search->add_option("--nprobe", s.nprobe, "lists scanned per query; several give a curve")->delimiter(',');
  search->add_option("--source", s.source, "bam (page cache over the emulated controller), vram, or memory (CPU)");
  search->add_flag("--ram", s.ram, "serve a RAM copy of the index instead of the file");
  search->add_flag("--prefetch-next", s.prefetch_next,
                   "IVF through bam: a look-ahead warp per block reads ahead of the scan");
  search->add_option("--look-ahead-pages", s.look_ahead_pages,
                     "with --prefetch-next: pages read ahead of the scan (0: an eighth of the cache, and none "
                     "for batches whose lists average fewer than 4 work items of 16 queries)");
  bam::apps::add_storage_options(*search, s.storage);
  search->add_option("--batch", s.batch, "queries per GPU batch (0: automatic)");
  search->add_flag("--exact", s.exact, "also run exact search over the same vectors and source");
  search->add_option("-o,--out", s.out, "write the ids of the last search (.ivecs or .npy)");
  search->add_option("--json", s.json, "also write the JSON summary here");
  search->add_option("--plot", s.plot, "draw recall vs QPS over nprobe as PNG (needs --gt and --json)");
  search->add_flag("--cpu", s.cpu, "search on CPU threads even when a GPU is present");

  groundtruth_args g;
  auto* gt = app.add_subcommand("groundtruth", "exact nearest neighbours of the queries in the base");
  add_base(gt, g.base, true);
  gt->add_option("-q,--queries", g.queries, "query vectors");
  gt->add_option("--generate-queries", g.generate_queries, "instead of --queries: rows of the generator's query stream");
  gt->add_option("-k", g.k, "neighbours per query");
  gt->add_option("--metric", g.metric, "l2 or ip");
  gt->add_option("-o,--out", g.out, "ids (.ivecs or .npy)")->required();
  gt->add_option("--distances", g.distances, "also write the distances (.fvecs or .npy)");
  gt->add_option("--json", g.json, "also write the JSON summary here");
  gt->add_flag("--cpu", g.cpu, "compute on CPU threads even when a GPU is present");

  generate_args gen;
  auto* generate = app.add_subcommand("generate", "write a seeded clustered collection (and queries) to files");
  generate->add_option("--rows", gen.base.generate, "vectors")->required();
  add_base(generate, gen.base, false);
  generate->remove_option(generate->get_option("--generate"));
  generate->add_option("-o,--out", gen.out, "base vectors (.fvecs or .npy)")->required();
  generate->add_option("--queries", gen.queries, "query vectors from the same clusters");
  generate->add_option("--queries-out", gen.queries_out, "query file (.fvecs or .npy)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*build) return run_build(b);
    if (*search) return run_search(s);
    if (*gt) return run_groundtruth(g);
    return run_generate(gen);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bam-knn: %s\n", e.what());
    return 1;
  }
}
