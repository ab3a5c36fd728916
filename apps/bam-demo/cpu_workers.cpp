// SPDX-License-Identifier: Apache-2.0
#include "apps/bam-demo/workload.hpp"

#include <thread>
#include <vector>

namespace bam::demo {

step_totals run_cpu_step(const demo_arrays& a, const step_plan& p) {
  std::vector<step_totals> per(p.workers);
  {
    std::vector<std::jthread> team;
    for (std::uint64_t w = 0; w < p.workers; ++w) team.emplace_back([&, w] { per[w] = run_worker(a, p, w); });
  }  // joined: every store of the step happens before the next step
  step_totals sum;
  for (const auto& t : per) {
    sum.reads += t.reads;
    sum.writes += t.writes;
    sum.wrong += t.wrong;
  }
  return sum;
}

}  // namespace bam::demo
