// SPDX-License-Identifier: Apache-2.0
// bam::host::fault_plan: rules that make an emulated controller delay, fail or drop chosen
// commands, so tests can prove that errors and timeouts reach the caller.
#pragma once

#include <bam/nvme/completion.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>

namespace bam::host {

/// What a matching rule does to a command.
enum class fault_effect {
  delay,   ///< execute normally, complete `delay_ns` later than otherwise
  status,  ///< do not execute; complete with (sct, sc)
  drop,    ///< do not execute; never complete
};

/// A rule's action.
struct fault_action {
  fault_effect effect = fault_effect::status;
  std::uint64_t delay_ns = 0;                              ///< for fault_effect::delay
  nvme::status_type sct = nvme::status_type::media;        ///< for fault_effect::status
  std::uint8_t sc = nvme::media_status::unrecovered_read_error;
};

/// Which queue a command came from.
enum class command_set { admin, io };

/// Which commands a rule applies to; unset optionals match anything.
struct fault_match {
  command_set queue = command_set::io;
  std::optional<std::uint8_t> opcode;
  std::optional<std::uint16_t> qid;
  std::optional<std::uint32_t> nsid;
  /// I/O commands whose blocks [slba, slba + n) overlap [lba_first, lba_last] (inclusive);
  /// commands without an LBA range (flush, admin) match only the default full range.
  std::uint64_t lba_first = 0;
  std::uint64_t lba_last = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t every_nth = 1;  ///< act on the n-th, 2n-th, ... matching command
  double probability = 1.0;     ///< then act with this probability (deterministic per seed)
  std::uint64_t seed = 0;
};

/// One rule: a match and an action.
struct fault_rule {
  fault_match match;
  fault_action action;
};

/// The command a controller asks the plan about.
struct fault_command {
  command_set queue = command_set::io;
  std::uint8_t opcode = 0;
  std::uint16_t qid = 0;
  std::uint32_t nsid = 0;
  bool has_lbas = false;  ///< Read/Write: [slba, slba + n_blocks) is meaningful
  std::uint64_t slba = 0;
  std::uint32_t n_blocks = 0;
};

/**
 * @brief An ordered list of fault rules, shared by every thread of a controller.
 *
 * Rules are appended (at most max_rules over the plan's life) and never change afterwards,
 * except that remove()/clear() disable them. The first enabled rule that matches a command and
 * whose every_nth/probability filter fires decides its fate. Consulting the plan takes no lock;
 * an empty plan costs one relaxed load.
 */
class fault_plan {
 public:
  static constexpr std::size_t max_rules = 64;

  /**
   * @brief Appends a rule; returns its id.
   * @note Thread-safe. Release-publishes the rule before it can be matched.
   * @throw bam::invalid_argument when max_rules rules were already added, or on every_nth 0.
   */
  std::size_t add(const fault_rule& rule);
  /** @brief Disables rule `id` (commands already affected stay affected). */
  void remove(std::size_t id);
  /** @brief Disables every rule. */
  void clear();

  /** @brief True when no rule is enabled. @note Relaxed load. */
  [[nodiscard]] bool empty() const noexcept {
    return enabled_.load(std::memory_order_relaxed) == 0;
  }
  /**
   * @brief The action for `cmd`, if a rule fires; counts matches and hits.
   * @note Lock-free: acquire load of the rule count, relaxed per-rule counters.
   */
  [[nodiscard]] std::optional<fault_action> consult(const fault_command& cmd) noexcept;
  /** @brief Times rule `id` fired. */
  [[nodiscard]] std::uint64_t hits(std::size_t id) const;

 private:
  struct entry {
    fault_rule rule;                       ///< written once before publication
    std::atomic<bool> enabled{false};
    std::atomic<std::uint64_t> matched{0};  ///< commands that matched, fired or not
    std::atomic<std::uint64_t> hits{0};
  };
  [[nodiscard]] static bool matches(const fault_match& m, const fault_command& c) noexcept;

  std::array<entry, max_rules> entries_{};
  std::atomic<std::size_t> count_{0};    ///< published entries
  std::atomic<std::size_t> enabled_{0};  ///< enabled entries
  std::mutex mutex_;                     ///< serialises add/remove/clear
};

}  // namespace bam::host
