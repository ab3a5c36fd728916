// SPDX-License-Identifier: Apache-2.0
// bam-pagerank: pull PageRank with GAP's semantics (damping 0.85, 20 iterations by default) over
// a symmetric graph whose edges are read through bam.
#include "apps/graph/app/app.hpp"
#include "apps/graph/pagerank.hpp"

#include <cmath>

namespace {

using namespace bam::graph;

/// --verify: |ours - reference| <= this * reference for every vertex (the kernels sum in
/// another order; nothing else differs).
constexpr double relative_tolerance = 1e-9;

class pagerank_app final : public app::algorithm {
 public:
  std::string name() const override { return "pagerank"; }
  std::string description() const override {
    return "pull PageRank (GAP semantics) over a symmetric bam CSR graph, edges read through bam's page cache";
  }
  bool uses_source() const override { return false; }
  bool uses_weights() const override { return false; }
  void add_options(CLI::App& cli) override {
    cli.add_option("-i,--iterations", iterations_, "iterations (GAP's -i)")->check(CLI::Range(1, 100000))
        ->capture_default_str();
    cli.add_option("-t,--tolerance", tolerance_, "stop once the L1 change is below this (0: run every iteration)")
        ->capture_default_str();
    cli.add_option("--damping", damping_, "damping factor")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  }
  app::trial_outcome run(const csr_file& file, const app::any_view& g, std::uint64_t,
                         const gpu::run_options& o) override {
    gpu::pagerank_options po;
    static_cast<gpu::run_options&>(po) = o;
    po.iterations = iterations_;
    po.tolerance = tolerance_;
    po.damping = damping_;
    auto r = std::visit([&](const auto& v) { return gpu::run_pagerank(v, po); }, g);
    scores_ = std::move(r.scores);
    iterations_run_ = r.iterations;
    const std::uint64_t arcs = file.header().num_edges;
    return {r.seconds, r.edges_examined, arcs * std::uint64_t(r.iterations), arcs,
            {{"iterations", r.iterations}, {"change", r.change}}};
  }
  std::string verify(const csr_file& file, std::uint64_t, unsigned threads) const override {
    pagerank_options ro;
    ro.damping = damping_;
    ro.max_iterations = iterations_run_;
    ro.tolerance = 0;  // the same number of iterations as the run
    const auto expected = visit_view(file, [&](const auto& g) { return pagerank(g, ro, threads); });
    for (std::uint64_t v = 0; v < expected.scores.size(); ++v) {
      if (std::fabs(scores_[v] - expected.scores[v]) > relative_tolerance * expected.scores[v]) {
        return "vertex " + std::to_string(v) + " scores " + std::to_string(scores_[v]) + ", the reference " +
               std::to_string(expected.scores[v]);
      }
    }
    return "";
  }
  void write(std::ostream& out) const override {
    out.precision(17);
    app::write_values(out, scores_);
  }

 private:
  int iterations_ = 20;
  double tolerance_ = 0;
  double damping_ = 0.85;
  int iterations_run_ = 0;
  std::vector<double> scores_;
};

}  // namespace

int main(int argc, char** argv) {
  pagerank_app alg;
  return app::app_main(alg, argc, argv);
}
