// SPDX-License-Identifier: Apache-2.0
// bam-sssp: single-source shortest paths (delta-stepping, GAP's weights 1..255) over a weighted
// graph whose edges and weights are read through bam, from sources picked as GAP does.
#include "apps/graph/app/app.hpp"
#include "apps/graph/sssp.hpp"

#include <limits>

namespace {

using namespace bam::graph;

class sssp_app final : public app::algorithm {
 public:
  std::string name() const override { return "sssp"; }
  std::string description() const override {
    return "single-source shortest paths (delta-stepping) over a weighted bam CSR graph, edges and "
           "weights read through bam's page cache";
  }
  bool uses_source() const override { return true; }
  bool uses_weights() const override { return true; }
  void add_options(CLI::App& cli) override {
    cli.add_option("--delta", delta_,
                   "bucket width in weight units (at least 1; wider buckets: fewer rounds, more edges relaxed)")
        ->check(CLI::Range(std::uint64_t{1}, std::numeric_limits<std::uint64_t>::max()))
        ->capture_default_str();
  }
  app::trial_outcome run(const csr_file& file, const app::any_view& g, std::uint64_t source,
                         const gpu::run_options& o) override {
    gpu::sssp_options so;
    static_cast<gpu::run_options&>(so) = o;
    so.delta = delta_;
    const auto r = std::visit([&](const auto& v) { return gpu::run_sssp(v, source, so); }, g);
    distance_ = r.distance;
    const std::uint64_t reached = app::reached_edges(file, distance_, sssp_unreached);
    return {r.seconds, r.edges_examined, reached, reached,
            {{"rounds", r.rounds}, {"buckets", r.buckets}, {"delta", delta_}}};
  }
  std::string verify(const csr_file& file, std::uint64_t source, unsigned threads) const override {
    const auto expected = visit_view(file, [&](const auto& g) { return sssp_distances(g, source, threads); });
    return app::first_difference(distance_, expected, "distance");
  }
  void write(std::ostream& out) const override {
    app::write_values(out, distance_, std::optional(sssp_unreached));
  }

 private:
  std::uint64_t delta_ = gpu::sssp_options{}.delta;
  std::vector<std::uint64_t> distance_;
};

}  // namespace

int main(int argc, char** argv) {
  sssp_app alg;
  return app::app_main(alg, argc, argv);
}
