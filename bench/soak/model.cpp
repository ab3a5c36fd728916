// SPDX-License-Identifier: Apache-2.0
#include "bench/soak/model.hpp"

#include "bench/common/fill.hpp"
#include "bench/soak/zipf.hpp"

#include <bam/error.hpp>
#include <bam/synthetic.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace bam::bench::soak {

namespace {
constexpr std::size_t zipf_entries = std::size_t{1} << 20;
constexpr double zipf_exponent = 0.99;
constexpr std::uint64_t elems_per_big_page = 65536 / 8;

bool power_of_two(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace

model::model(lanes& l, layout shape, std::uint64_t fill_seed) : lanes_(l), layout_(shape), fill_seed_(fill_seed) {
  BAM_EXPECTS(power_of_two(shape.n_data) && shape.n_data >= elems_per_big_page,
              "soak: data elements must be a power of two of at least " + std::to_string(elems_per_big_page) +
                  ", got " + std::to_string(shape.n_data));
  BAM_EXPECTS(power_of_two(shape.n_counters), "soak: counters must be a power of two, got " +
                                                  std::to_string(shape.n_counters));
  ns_ = std::make_shared<host::ram_store>(layout::block_bytes, shape.total_bytes() / layout::block_bytes);
  stored_.resize(shape.n_data + shape.n_counters);
  expected_.resize(stored_.size());
  fill_synthetic(*ns_, fill_seed, reinterpret_cast<std::byte*>(stored_.data()));
  values_ = l.allocate(shape.n_data * sizeof(std::uint64_t));
  l.upload(values_.get(), stored_.data(), shape.n_data * sizeof(std::uint64_t));
  added_ = l.allocate(shape.n_counters * sizeof(std::uint64_t));
  claims_ = l.allocate(shape.n_data * sizeof(std::uint32_t));
  const auto ranks = zipf_ranks(shape.n_data / zipf_unit_elems, zipf_entries, zipf_exponent, fill_seed);
  zipf_ = l.allocate(ranks.size() * sizeof(ranks[0]));
  l.upload(zipf_.get(), ranks.data(), ranks.size() * sizeof(ranks[0]));
  zipf_mask_ = std::uint32_t(ranks.size() - 1);
}

void model::bind(phase_params& p) const {
  p.model = static_cast<std::uint64_t*>(values_.get());
  p.added = static_cast<std::uint64_t*>(added_.get());
  p.claims = static_cast<std::uint32_t*>(claims_.get());
  p.zipf_ranks = static_cast<const std::uint32_t*>(zipf_.get());
  p.zipf_mask = zipf_mask_;
  p.fill_seed = fill_seed_;
}

backing_check model::verify_backing() {
  const std::uint64_t n_data = layout_.n_data, total = n_data + layout_.n_counters;
  std::vector<std::uint64_t>& expected = expected_;
  std::vector<std::uint64_t>& stored = stored_;
  lanes_.download(expected.data(), values_.get(), n_data * sizeof(std::uint64_t));
  lanes_.download(expected.data() + n_data, added_.get(), layout_.n_counters * sizeof(std::uint64_t));
  for (std::uint64_t c = 0; c < layout_.n_counters; ++c)  // start + adds
    expected[n_data + c] += synthetic_word(fill_seed_, n_data + c);

  std::atomic<std::uint64_t> data_bad{0}, counter_bad{0};
  std::mutex first_mutex;
  std::uint64_t first_at = total;
  const std::uint64_t chunk = (std::uint64_t{8} << 20) / 8;  // elements per read
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      std::uint64_t mine = total, data = 0, counters = 0;
      for (std::uint64_t at = t * chunk; at < total; at += threads * chunk) {
        const std::uint64_t n = std::min(chunk, total - at);
        ns_->read(at * 8 / layout::block_bytes, std::uint32_t(n * 8 / layout::block_bytes),
                  reinterpret_cast<std::byte*>(stored.data() + at));
        for (std::uint64_t i = at; i < at + n; ++i) {
          if (stored[i] == expected[i]) continue;
          ++(i < n_data ? data : counters);
          mine = std::min(mine, i);
        }
      }
      data_bad += data;
      counter_bad += counters;
      const std::lock_guard lock(first_mutex);
      first_at = std::min(first_at, mine);
    });
  }
  for (auto& th : team) th.join();

  backing_check r;
  r.elements = total;
  r.data_mismatches = data_bad.load();
  r.counter_mismatches = counter_bad.load();
  if (r.mismatches() == 0) return r;
  const std::uint64_t i = first_at;
  r.first = i < n_data ? "data element " + std::to_string(i) : "counter " + std::to_string(i - n_data);
  r.first += ": storage holds " + hex(stored[i]) + ", the model " + hex(expected[i]);
  if (i < n_data && (stored[i] >> 40) != 0 && (stored[i] & ((std::uint64_t{1} << 40) - 1)) < n_data)
    r.first += " (a store of phase " + std::to_string(stored[i] >> 40) + " to element " +
               std::to_string(stored[i] & ((std::uint64_t{1} << 40) - 1)) + "?)";
  // Rebase the model on storage, so later runs are checked against what it holds.
  lanes_.upload(values_.get(), stored.data(), n_data * sizeof(std::uint64_t));
  for (std::uint64_t c = 0; c < layout_.n_counters; ++c)
    stored[n_data + c] -= synthetic_word(fill_seed_, n_data + c);
  lanes_.upload(added_.get(), stored.data() + n_data, layout_.n_counters * sizeof(std::uint64_t));
  return r;
}

}  // namespace bam::bench::soak
