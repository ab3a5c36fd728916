// SPDX-License-Identifier: Apache-2.0
// bam-cc: connected components (Afforest) over a graph whose edges are read through bam; each
// vertex is labelled with the smallest vertex of its component.
#include "apps/graph/app/app.hpp"
#include "apps/graph/cc.hpp"

namespace {

using namespace bam::graph;

class cc_app final : public app::algorithm {
 public:
  std::string name() const override { return "cc"; }
  std::string description() const override {
    return "connected components (Afforest) over a bam CSR graph, edges read through bam's page cache";
  }
  bool uses_source() const override { return false; }
  bool uses_weights() const override { return false; }
  app::trial_outcome run(const csr_file& file, const app::any_view& g, std::uint64_t,
                         const gpu::run_options& o) override {
    std::uint64_t components = 0;
    double seconds = 0;
    std::uint64_t examined = 0;
    std::visit(
        [&](const auto& v) {
          auto r = gpu::run_cc(v, o);
          seconds = r.seconds;
          examined = r.edges_examined;
          label_.assign(r.component.begin(), r.component.end());
        },
        g);
    for (std::uint64_t v = 0; v < label_.size(); ++v) components += label_[v] == v;
    const std::uint64_t arcs = file.header().num_edges;
    return {seconds, examined, arcs, arcs, {{"components", components}}};
  }
  std::string verify(const csr_file& file, std::uint64_t, unsigned threads) const override {
    return visit_view(file, [&](const auto& g) {
      return app::first_difference(label_, connected_components(g, threads), "component");
    });
  }
  void write(std::ostream& out) const override { app::write_values(out, label_); }

 private:
  std::vector<std::uint64_t> label_;  ///< smallest vertex of each vertex's component
};

}  // namespace

int main(int argc, char** argv) {
  cc_app alg;
  return app::app_main(alg, argc, argv);
}
