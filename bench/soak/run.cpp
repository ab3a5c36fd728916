// SPDX-License-Identifier: Apache-2.0
#include "bench/soak/run.hpp"

#include <bam/error.hpp>
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/fault_plan.hpp>
#include <bam/nvme/command.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/synthetic.hpp>

#include <algorithm>
#include <memory>

namespace bam::bench::soak {

namespace {

constexpr std::uint8_t media_write_fault = 0x80;  // NVMe Write Fault (SCT 2h)
constexpr std::size_t kept_messages = 3;

/// The run's fault rules: one for reads and one for writes, each firing with the run's rate.
/// A delay is a twentieth of the time limit, so it can never make a wait time out.
std::shared_ptr<host::fault_plan> make_faults(const run_config& c, std::chrono::milliseconds timeout,
                                              std::uint64_t seed) {
  auto plan = std::make_shared<host::fault_plan>();
  if (c.fault == fault_kind::none) return plan;
  for (const nvme::io_opcode opcode : {nvme::io_opcode::read, nvme::io_opcode::write}) {
    host::fault_rule rule;
    rule.match.queue = host::command_set::io;
    rule.match.opcode = std::uint8_t(opcode);
    rule.match.probability = c.fault_rate;
    rule.match.seed = seed + std::uint8_t(opcode);
    switch (c.fault) {
      case fault_kind::drop: rule.action.effect = host::fault_effect::drop; break;
      case fault_kind::delay:
        rule.action.effect = host::fault_effect::delay;
        rule.action.delay_ns = std::uint64_t(std::chrono::nanoseconds(timeout).count()) / 20;
        break;
      case fault_kind::media:
        rule.action.effect = host::fault_effect::status;
        rule.action.sct = nvme::status_type::media;
        rule.action.sc = opcode == nvme::io_opcode::read ? nvme::media_status::unrecovered_read_error : media_write_fault;
        break;
      case fault_kind::none: break;
    }
    plan->add(rule);
  }
  return plan;
}

void add(phase_counts& into, const phase_counts& c) {
  into.reads += c.reads;
  into.stores += c.stores;
  into.adds += c.adds;
  into.wrong += c.wrong;
  into.skipped += c.skipped;
  for (unsigned s = 0; s < status_count; ++s) into.failed[s] += c.failed[s];
  if (!into.first_wrong_claimed && c.first_wrong_claimed) {
    into.first_wrong_claimed = 1;
    into.first_wrong_kind = c.first_wrong_kind;
    into.first_wrong_index = c.first_wrong_index;
    into.first_wrong_expected = c.first_wrong_expected;
    into.first_wrong_got = c.first_wrong_got;
  }
}

/// Statuses an injected drop or media error can explain: the command's own failure, the wait
/// that timed out, a pair out of service, slots held by waiters meanwhile.
bool explained_by_faults(status s) {
  return s == status::io_error || s == status::timeout || s == status::queue_failed || s == status::no_slot;
}

/// Failures are expected only where drops or media errors were injected (delays must never
/// make an access fail); out_of_range and invalid_argument never are.
void classify(run_result& r) {
  const bool may_fail = r.config.fault == fault_kind::drop || r.config.fault == fault_kind::media;
  for (unsigned s = 0; s < status_count; ++s) {
    const unsigned long long n = r.counts.failed[s];
    (may_fail && explained_by_faults(status(s)) ? r.expected_failures : r.unexpected_failures) += n;
  }
  // A check() error with no failed access behind it (a write-back during an eviction whose
  // access still succeeded, say) is a failure too.
  if (!may_fail && r.unexpected_failures < r.check_error_count) r.unexpected_failures = r.check_error_count;
  if (!r.flush_error.empty()) (may_fail ? r.expected_failures : r.unexpected_failures) += 1;
  if (!r.run_error.empty()) r.unexpected_failures += 1;
}

}  // namespace

double run_result::max_recovery_ms() const {
  double m = 0;
  for (const auto& e : recoveries) m = std::max(m, e.recovery_ms);
  return m;
}

run_result runner::run(const run_config& c, double seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  run_result r;
  r.config = c;
  r.lanes = lanes_.lanes_of(c.grid);
  const layout& shape = model_.shape();
  const auto timeout = c.fault == fault_kind::none ? options_.timeout : options_.fault_timeout;
  const auto plan = make_faults(c, timeout, synthetic_word(options_.seed, phase_));
  try {
    host::emulated_system_options so;
    so.controllers = {{model_.store()}};
    so.workers_per_controller = options_.workers;
    so.queue_pairs = options_.queue_pairs;
    // Frames are queue pairs x depth x page: keep them modest for the largest pages.
    so.queue_depth = c.page_bytes > 4096 ? std::min<std::uint32_t>(options_.queue_depth, 128) : options_.queue_depth;
    so.use_gpu = lanes_.on_gpu();
    so.emulator.faults = plan;
    host::emulated_system sys(so);

    page_cache_options o;
    o.page_bytes = c.page_bytes;
    // At least a warp's distinct pages (page_cache's minimum on a GPU; a CPU group is smaller).
    o.cache_bytes = std::max<std::size_t>(shape.total_bytes() / c.cache_divisor, 32 * std::size_t{c.page_bytes});
    o.timeout = timeout;
    page_cache cache(sys.controllers(), sys.memory(), o);
    r.cache_slots = cache.n_slots();

    phase_params p{.data = cache.map<std::uint64_t>({.name = "data", .nsid = 1, .start_lba = 0, .count = shape.n_data}),
                   .counters = cache.map<std::uint64_t>(
                       {.name = "counters", .nsid = 1, .start_lba = shape.counters_lba(), .count = shape.n_counters})};
    model_.bind(p);
    p.pat = c.pat;
    // Hot: half the slots hold the hot data, one more the hot counters.
    const std::uint64_t per_page = c.page_bytes / 8;
    const std::uint64_t hot_pages = std::max<std::uint64_t>(1, r.cache_slots / 2 - (r.cache_slots > 2 ? 1 : 0));
    p.hot_data = std::min(shape.n_data, hot_pages * per_page);
    p.hot_counters = std::min(shape.n_counters, per_page);
    p.ops_per_lane = std::uint32_t(std::clamp<std::uint64_t>(options_.phase_accesses / r.lanes, 16, std::uint64_t{1} << 20));
    p.phase_ns = std::uint64_t(std::clamp(seconds * 0.7 / 4, 0.002, 0.5) * 1e9);

    double last = 0;
    while (r.phases < 1 || since(t0) + last < seconds * 0.8) {
      if (phase_ >= max_phases) throw error("soak: more than " + std::to_string(max_phases) + " phases");
      p.phase = ++phase_;
      p.seed = synthetic_word(options_.seed, p.phase);
      const auto w0 = std::chrono::steady_clock::now();
      const phase_result pr = lanes_.run(p, c.grid);
      last = since(w0);
      add(r.counts, pr.counts);
      r.phase_seconds += pr.seconds;
      ++r.phases;
      try {
        cache.check();
      } catch (const error& e) {
        if (r.check_errors.size() < kept_messages) r.check_errors.emplace_back(e.what());
        ++r.check_error_count;
      }
    }
    r.hit_rate = cache.total_stats().hit_rate();
    const host::io_stats io = sys.emulator(0).stats();
    r.commands = io.commands;
    r.dropped = io.dropped;
    r.nvme_errors = io.errors;
    plan->clear();
    try {
      cache.flush();
    } catch (const error& e) {
      r.flush_error = e.what();
    }
    r.recoveries = cache.take_recoveries();
  } catch (const error& e) {
    r.run_error = e.what();
  }
  r.backing = model_.verify_backing();
  classify(r);
  r.seconds = since(t0);
  return r;
}

}  // namespace bam::bench::soak
