// SPDX-License-Identifier: Apache-2.0
// bam::host::timing_model: when an emulated controller may post a completion, given the
// latency, IOPS and bandwidth of a chosen SSD and a stripe of N such drives.
#pragma once

#include <bam/config.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

namespace bam::host {

/// Published performance of one drive (docs/emulated-controller.md cites the sources).
struct drive_profile {
  const char* name = "";
  std::uint64_t read_latency_ns = 0;     ///< 4 KiB random read at queue depth 1
  std::uint64_t write_latency_ns = 0;    ///< 4 KiB random write at queue depth 1
  std::uint64_t read_iops = 0;           ///< 4 KiB random reads per second, deep queues
  std::uint64_t write_iops = 0;          ///< 4 KiB random writes per second, deep queues
  std::uint64_t read_bytes_per_s = 0;    ///< sequential read bandwidth
  std::uint64_t write_bytes_per_s = 0;   ///< sequential write bandwidth
};

/// Drives with published numbers.
namespace drive_presets {
/// Intel Optane SSD DC P5800X (3D XPoint, PCIe 4.0 x4).
inline constexpr drive_profile intel_optane_p5800x{
    "Intel Optane SSD DC P5800X", 5'000, 5'000, 1'500'000, 1'500'000, 7'200'000'000,
    6'200'000'000};
/// Samsung 980 PRO 1 TB (TLC NAND, PCIe 4.0 x4).
inline constexpr drive_profile samsung_980_pro{
    "Samsung 980 PRO 1TB", 45'000, 16'000, 1'000'000, 1'000'000, 7'000'000'000, 5'000'000'000};
}  // namespace drive_presets

/// A preset by its short name, for command lines.
struct named_drive {
  std::string_view name;  ///< e.g. "optane-p5800x"
  const drive_profile* profile;
};
/// Every preset with its short name: "optane-p5800x", "980pro".
inline constexpr named_drive named_drives[] = {
    {"optane-p5800x", &drive_presets::intel_optane_p5800x},
    {"980pro", &drive_presets::samsung_980_pro},
};

/// Direction of a data transfer.
enum class io_direction { read, write };

/**
 * @brief A stripe of identical drives, each a server with one "busy until" clock.
 *
 * A command's byte range is cut at stripe-unit boundaries; piece k goes to drive
 * (offset / stripe_bytes) % n_drives and occupies it for
 * max(1 s / iops, bytes / bandwidth) from max(now, the drive's busy-until). The command may
 * complete at the latest of (arrival + latency) and each piece's end of service. So queue depth
 * 1 sees the latency, deep queues see min(IOPS, bandwidth / size) per drive, and a sequential
 * stream spread over the stripe sees N times one drive's bandwidth. Flush completes after every
 * drive's accepted work, and no earlier than the write latency.
 */
class timing_model {
 public:
  struct options {
    drive_profile drive = drive_presets::intel_optane_p5800x;
    std::uint32_t n_drives = 1;
    std::uint64_t stripe_bytes = 128 * 1024;  ///< stripe unit
  };

  /** @throw bam::invalid_argument on zero drives, stripe unit, IOPS or bandwidth. */
  explicit timing_model(const options& opts);

  /**
   * @brief Reserves drive time for a transfer arriving at `now_ns`; returns the earliest time
   *        its completion may be posted.
   * @note Thread-safe and lock-free: one CAS loop per piece on the drive's busy-until clock
   *       (relaxed: the clocks order nothing but themselves).
   */
  [[nodiscard]] std::uint64_t schedule(io_direction dir, std::uint64_t byte_offset,
                                       std::uint64_t bytes, std::uint64_t now_ns) noexcept;
  /** @brief Earliest completion of a Flush arriving at `now_ns`. @note Thread-safe. */
  [[nodiscard]] std::uint64_t schedule_flush(std::uint64_t now_ns) const noexcept;

  [[nodiscard]] const options& config() const noexcept { return options_; }

 private:
  /// One drive's clock, alone on its cache line.
  struct alignas(cache_line_bytes) drive_clock {
    std::atomic<std::uint64_t> busy_until{0};
  };

  options options_;
  std::unique_ptr<drive_clock[]> drives_;
};

/**
 * @brief Timing options for `spec` = "NAME" or "NAME:N": N drives (default 1) of the preset
 *        with short name NAME (see named_drives), striped in units of `stripe_bytes`.
 *        E.g. "980pro:4" is four Samsung 980 PROs; set it as emulated_controller::options::timing
 *        (emulated_system_options::emulator.timing) to build an emulated system of those drives.
 * @throw bam::invalid_argument for an unknown name (the message lists the known ones) or a
 *        drive count that is not a number in 1..64.
 */
[[nodiscard]] timing_model::options drive_array(std::string_view spec,
                                                std::uint64_t stripe_bytes = 128 * 1024);

}  // namespace bam::host
