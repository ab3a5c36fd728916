// SPDX-License-Identifier: Apache-2.0
#include "host/timing_model.hpp"

#include <bam/error.hpp>

#include <algorithm>

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

}  // namespace bam::host
