// SPDX-License-Identifier: Apache-2.0
#include <bam/host/emulator/timing_model.hpp>

#include <bam/error.hpp>

#include <algorithm>
#include <charconv>
#include <string>

namespace bam::host {

namespace {
constexpr double ns_per_s = 1e9;

/// Service time of `bytes` on one drive: bound by its IOPS or its bandwidth.
std::uint64_t service_ns(std::uint64_t iops, std::uint64_t bytes_per_s, std::uint64_t bytes) {
  return std::uint64_t(std::max(ns_per_s / double(iops), ns_per_s * double(bytes) /
                                                             double(bytes_per_s)));
}
}  // namespace

timing_model::timing_model(const options& opts)
    : options_(opts), drives_(std::make_unique<drive_clock[]>(std::max(opts.n_drives, 1u))) {
  const drive_profile& d = opts.drive;
  BAM_EXPECTS(opts.n_drives > 0 && opts.stripe_bytes > 0,
              "timing_model: need at least one drive and a non-zero stripe unit");
  BAM_EXPECTS(d.read_iops > 0 && d.write_iops > 0 && d.read_bytes_per_s > 0 &&
                  d.write_bytes_per_s > 0,
              std::string("timing_model: profile '") + d.name + "' has a zero IOPS or bandwidth");
}

std::uint64_t timing_model::schedule(io_direction dir, std::uint64_t byte_offset,
                                     std::uint64_t bytes, std::uint64_t now_ns) noexcept {
  const drive_profile& d = options_.drive;
  const bool read = dir == io_direction::read;
  std::uint64_t done = now_ns + (read ? d.read_latency_ns : d.write_latency_ns);
  const std::uint64_t end = byte_offset + bytes;
  for (std::uint64_t at = byte_offset; at < end;) {
    const std::uint64_t unit = at / options_.stripe_bytes;
    const std::uint64_t piece = std::min(end, (unit + 1) * options_.stripe_bytes) - at;
    const std::uint64_t cost = read ? service_ns(d.read_iops, d.read_bytes_per_s, piece)
                                    : service_ns(d.write_iops, d.write_bytes_per_s, piece);
    auto& clock = drives_[unit % options_.n_drives].busy_until;
    std::uint64_t busy = clock.load(std::memory_order_relaxed);
    std::uint64_t finish;
    do {
      finish = std::max(busy, now_ns) + cost;
    } while (!clock.compare_exchange_weak(busy, finish, std::memory_order_relaxed));
    done = std::max(done, finish);
    at += piece;
  }
  return done;
}

std::uint64_t timing_model::schedule_flush(std::uint64_t now_ns) const noexcept {
  std::uint64_t done = now_ns + options_.drive.write_latency_ns;
  for (std::uint32_t i = 0; i < options_.n_drives; ++i) {
    done = std::max(done, drives_[i].busy_until.load(std::memory_order_relaxed));
  }
  return done;
}

timing_model::options drive_array(std::string_view spec, std::uint64_t stripe_bytes) {
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  std::uint32_t n_drives = 1;
  if (colon != std::string_view::npos) {
    const std::string_view count = spec.substr(colon + 1);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n_drives);
    BAM_EXPECTS(ec == std::errc{} && end == count.data() + count.size() && n_drives >= 1 &&
                    n_drives <= 64,
                "drive_array: '" + std::string(spec) + "': the drive count must be 1..64");
  }
  std::string known;
  for (const named_drive& d : named_drives) {
    if (d.name == name) return timing_model::options{*d.profile, n_drives, stripe_bytes};
    known += (known.empty() ? "" : ", ") + std::string(d.name);
  }
  throw invalid_argument("drive_array: unknown drive '" + std::string(name) + "' (known: " + known +
                         "; write NAME or NAME:COUNT)");
}

}  // namespace bam::host
