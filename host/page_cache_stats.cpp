// SPDX-License-Identifier: Apache-2.0
// page_cache statistics as JSON and as a table.
#include <bam/page_cache.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>

namespace bam {

namespace {
nlohmann::json to_json(const array_stats& s) {
  const auto& c = s.counts;
  return {{"name", s.name},          {"accesses", c.accesses},   {"hits", c.hits},
          {"misses", c.misses},      {"coalesced", c.coalesced}, {"failures", c.failures},
          {"evictions", c.evictions}, {"write_backs", c.write_backs}, {"bytes_read", c.bytes_read},
          {"bytes_written", c.bytes_written}, {"hit_rate", s.hit_rate()}};
}
}  // namespace

std::string page_cache::stats_json(stream_handle stream) const {
  nlohmann::json arrays = nlohmann::json::array();
  for (std::uint32_t i = 0; i < n_arrays(); ++i) arrays.push_back(to_json(stats(i, stream)));
  nlohmann::json doc = {{"page_bytes", page_bytes()}, {"slots", n_slots()}, {"arrays", arrays},
                        {"total", to_json(total_stats(stream))}};
  const auto h = latency_histogram(stream);
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t b = 0; b < h.size(); ++b)
    if (h[b]) buckets.push_back({{"from_ns", 1ull << b}, {"commands", h[b]}});
  doc["io_latency_histogram"] = buckets;
  return doc.dump(2);
}

std::string page_cache::stats_table(stream_handle stream) const {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %12s %7s %12s %12s %12s %10s %10s %12s %12s\n", "array", "accesses", "hit%",
                "hits", "misses", "coalesced", "evictions", "writebacks", "MiB read", "MiB written");
  out += line;
  auto row = [&](const array_stats& s) {
    const auto& c = s.counts;
    std::snprintf(line, sizeof line, "%-20.20s %12llu %6.1f%% %12llu %12llu %12llu %10llu %10llu %12.1f %12.1f\n",
                  s.name.c_str(), (unsigned long long)c.accesses, 100.0 * s.hit_rate(), (unsigned long long)c.hits,
                  (unsigned long long)c.misses, (unsigned long long)c.coalesced, (unsigned long long)c.evictions,
                  (unsigned long long)c.write_backs, double(c.bytes_read) / (1 << 20),
                  double(c.bytes_written) / (1 << 20));
    out += line;
  };
  for (std::uint32_t i = 0; i < n_arrays(); ++i) row(stats(i, stream));
  row(total_stats(stream));
  const auto h = latency_histogram(stream);
  std::uint64_t total = 0;
  for (auto v : h) total += v;
  if (total) {
    out += "I/O latency:";
    for (std::size_t b = 0; b < h.size(); ++b) {
      if (!h[b]) continue;
      const double us = double(1ull << b) / 1000.0;
      std::snprintf(line, sizeof line, "  >=%gus:%.1f%%", us, 100.0 * double(h[b]) / double(total));
      out += line;
    }
    out += "\n";
  }
  return out;
}

}  // namespace bam
