// SPDX-License-Identifier: Apache-2.0
// bam-bfs: direction-optimizing breadth-first search over a graph whose edges are read through
// bam (or from VRAM, pinned or managed memory), from sources picked as GAP picks them.
#include "apps/graph/app/app.hpp"
#include "apps/graph/bfs.hpp"

namespace {

using namespace bam::graph;

class bfs_app final : public app::algorithm {
 public:
  std::string name() const override { return "bfs"; }
  std::string description() const override {
    return "direction-optimizing BFS (hop depths) over a bam CSR graph, edges read through bam's page cache";
  }
  bool uses_source() const override { return true; }
  bool uses_weights() const override { return false; }
  void add_options(CLI::App& cli) override {
    cli.add_option("--alpha", alpha_, "go bottom-up when frontier edges > unexplored edges / alpha")
        ->capture_default_str();
    cli.add_option("--beta", beta_, "go back top-down when the frontier shrinks below vertices / beta")
        ->capture_default_str();
  }
  app::trial_outcome run(const csr_file& file, const app::any_view& g, std::uint64_t source,
                         const gpu::run_options& o) override {
    gpu::bfs_options bo;
    static_cast<gpu::run_options&>(bo) = o;
    bo.alpha = alpha_;
    bo.beta = beta_;
    const auto r = std::visit([&](const auto& v) { return gpu::run_bfs(v, source, bo); }, g);
    depth_ = r.depth;
    const std::uint64_t reached = app::reached_edges(file, depth_, bfs_unreached);
    return {r.seconds, r.edges_examined, reached, reached, {{"levels", r.levels}}};
  }
  std::string verify(const csr_file& file, std::uint64_t source, unsigned threads) const override {
    const auto expected = visit_view(file, [&](const auto& g) { return bfs_depths(g, source, threads); });
    return app::first_difference(depth_, expected, "depth");
  }
  void write(std::ostream& out) const override { app::write_values(out, depth_, std::optional(bfs_unreached)); }

 private:
  std::uint32_t alpha_ = 15, beta_ = 18;
  std::vector<std::uint32_t> depth_;
};

}  // namespace

int main(int argc, char** argv) {
  bfs_app alg;
  return app::app_main(alg, argc, argv);
}
