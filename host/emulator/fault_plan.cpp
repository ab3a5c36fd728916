// SPDX-License-Identifier: Apache-2.0
#include <bam/host/emulator/fault_plan.hpp>

#include <bam/error.hpp>
#include <bam/synthetic.hpp>

#include <string>

namespace bam::host {

std::size_t fault_plan::add(const fault_rule& rule) {
  BAM_EXPECTS(rule.match.every_nth > 0, "fault_plan::add: every_nth must be at least 1");
  std::lock_guard lock(mutex_);
  const std::size_t id = count_.load(std::memory_order_relaxed);
  BAM_EXPECTS(id < max_rules,
              "fault_plan::add: a plan holds at most " + std::to_string(max_rules) + " rules");
  entries_[id].rule = rule;
  entries_[id].enabled.store(true, std::memory_order_relaxed);
  // Release: a consult() that sees the new count sees the rule's fields.
  count_.store(id + 1, std::memory_order_release);
  enabled_.fetch_add(1, std::memory_order_relaxed);
  return id;
}

void fault_plan::remove(std::size_t id) {
  std::lock_guard lock(mutex_);
  BAM_EXPECTS(id < count_.load(std::memory_order_relaxed),
              "fault_plan::remove: no rule " + std::to_string(id));
  if (entries_[id].enabled.exchange(false, std::memory_order_relaxed)) {
    enabled_.fetch_sub(1, std::memory_order_relaxed);
  }
}

void fault_plan::clear() {
  std::lock_guard lock(mutex_);
  for (std::size_t id = 0; id < count_.load(std::memory_order_relaxed); ++id) {
    entries_[id].enabled.store(false, std::memory_order_relaxed);
  }
  enabled_.store(0, std::memory_order_relaxed);
}

std::uint64_t fault_plan::hits(std::size_t id) const {
  BAM_EXPECTS(id < count_.load(std::memory_order_acquire),
              "fault_plan::hits: no rule " + std::to_string(id));
  return entries_[id].hits.load(std::memory_order_relaxed);
}

bool fault_plan::matches(const fault_match& m, const fault_command& c) noexcept {
  if (m.queue != c.queue) return false;
  if (m.opcode && *m.opcode != c.opcode) return false;
  if (m.qid && *m.qid != c.qid) return false;
  if (m.nsid && *m.nsid != c.nsid) return false;
  const bool full_range = m.lba_first == 0 && m.lba_last == ~std::uint64_t{0};
  if (full_range) return true;
  if (!c.has_lbas || c.n_blocks == 0) return false;
  const std::uint64_t last = c.slba + (c.n_blocks - 1);
  return c.slba <= m.lba_last && last >= m.lba_first;
}

std::optional<fault_action> fault_plan::consult(const fault_command& cmd) noexcept {
  const std::size_t n = count_.load(std::memory_order_acquire);
  for (std::size_t id = 0; id < n; ++id) {
    entry& e = entries_[id];
    if (!e.enabled.load(std::memory_order_relaxed) || !matches(e.rule.match, cmd)) continue;
    const std::uint64_t k = e.matched.fetch_add(1, std::memory_order_relaxed) + 1;
    if (k % e.rule.match.every_nth != 0) continue;
    if (e.rule.match.probability < 1.0) {
      // A deterministic coin per (seed, match number): 53 random bits as a fraction.
      const double u = double(synthetic_word(e.rule.match.seed, k) >> 11) * 0x1.0p-53;
      if (u >= e.rule.match.probability) continue;
    }
    e.hits.fetch_add(1, std::memory_order_relaxed);
    return e.rule.action;
  }
  return std::nullopt;
}

}  // namespace bam::host
