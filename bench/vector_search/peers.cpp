// SPDX-License-Identifier: Apache-2.0
#include "bench/vector_search/peers.hpp"

#include "apps/common/python_script.hpp"

#include <fstream>
#include <string>
#include <vector>

namespace bam::bench::vector {

nlohmann::json run_peers(const peer_args& a) {
  std::string probes;
  for (const auto p : a.nprobe) probes += (probes.empty() ? "" : ",") + std::to_string(p);
  const std::vector<std::string> args{"--index",   a.index,   "--queries", a.queries_npy,           "--gt",
                                      a.gt_ivecs,  "--nprobe", probes,      "--k",                   std::to_string(a.k),
                                      "--threads", std::to_string(a.threads), "--reps", std::to_string(a.reps),
                                      "--out",     a.out_json};
  const std::string cmd = apps::python_command("peers.py", args);
  const int rc = apps::run_python_script("peers.py", args);
  std::ifstream in(a.out_json);
  if (rc != 0 || !in) return {{"errors", {"peers.py failed (exit status " + std::to_string(rc) + "): " + cmd}}};
  return nlohmann::json::parse(in);
}

}  // namespace bam::bench::vector
