// SPDX-License-Identifier: Apache-2.0
#include "host/emulator/prp_walker.hpp"

#include <bam/nvme/completion.hpp>

#include <algorithm>
#include <cstring>

namespace bam::host::detail {

namespace {
namespace gs = nvme::generic_status;

/// Appends translated bus ranges to the output, one IOMMU page at a time.
template <class Byte>
class segment_sink {
 public:
  segment_sink(const emulated_iommu& iommu, std::span<std::span<Byte>> out) noexcept
      : iommu_(iommu), out_(out) {}

  /// Adds [bus, bus + len); returns a generic status code.
  std::uint8_t add(std::uint64_t bus, std::size_t len) noexcept {
    constexpr std::size_t page = emulated_iommu::page_bytes;
    while (len > 0) {
      const std::size_t chunk = std::min(len, page - std::size_t(bus & (page - 1)));
      std::byte* host = iommu_.translate(bus, chunk);
      if (host == nullptr) return gs::data_transfer_error;
      if (n_ > 0 && out_[n_ - 1].data() + out_[n_ - 1].size() == host) {
        out_[n_ - 1] = std::span<Byte>(out_[n_ - 1].data(), out_[n_ - 1].size() + chunk);
      } else if (n_ < out_.size()) {
        out_[n_++] = std::span<Byte>(host, chunk);
      } else {
        return gs::invalid_field;  // more segments than the caller's MDTS allows for
      }
      bus += chunk;
      len -= chunk;
    }
    return gs::success;
  }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

 private:
  const emulated_iommu& iommu_;
  std::span<std::span<Byte>> out_;
  std::size_t n_ = 0;
};
}  // namespace

template <class Byte>
prp_result walk_prps(const emulated_iommu& iommu, std::uint64_t prp1, std::uint64_t prp2,
                     std::size_t bytes, std::size_t page_bytes,
                     std::span<std::span<Byte>> out) noexcept {
  const std::uint64_t mask = page_bytes - 1;
  segment_sink<Byte> sink(iommu, out);
  const auto done = [&](std::uint8_t sc) { return prp_result{sc, sink.size()}; };
  if (bytes == 0) return done(gs::success);
  if ((prp1 & 3) != 0) return done(gs::invalid_prp_offset);

  const std::size_t first = std::min<std::size_t>(bytes, page_bytes - (prp1 & mask));
  if (const auto sc = sink.add(prp1, first)) return done(sc);
  std::size_t remaining = bytes - first;
  if (remaining == 0) return done(gs::success);
  if (remaining <= page_bytes) {
    if ((prp2 & mask) != 0) return done(gs::invalid_prp_offset);
    return done(sink.add(prp2, remaining));
  }

  std::uint64_t list = prp2;
  if ((list & 7) != 0) return done(gs::invalid_prp_offset);
  while (remaining > 0) {
    const std::size_t slots = (page_bytes - (list & mask)) / sizeof(std::uint64_t);
    for (std::size_t i = 0; i < slots && remaining > 0; ++i) {
      const std::byte* at = iommu.translate(list + i * sizeof(std::uint64_t), sizeof(std::uint64_t));
      if (at == nullptr) return done(gs::data_transfer_error);
      std::uint64_t entry;
      std::memcpy(&entry, at, sizeof entry);
      if ((entry & mask) != 0) return done(gs::invalid_prp_offset);
      if (i + 1 == slots && remaining > page_bytes) {
        list = entry;  // the last slot of a full list page chains to the next list page
        break;
      }
      const std::size_t len = std::min<std::size_t>(remaining, page_bytes);
      if (const auto sc = sink.add(entry, len)) return done(sc);
      remaining -= len;
    }
  }
  return done(gs::success);
}

template prp_result walk_prps<std::byte>(const emulated_iommu&, std::uint64_t, std::uint64_t,
                                         std::size_t, std::size_t,
                                         std::span<std::span<std::byte>>) noexcept;
template prp_result walk_prps<const std::byte>(const emulated_iommu&, std::uint64_t,
                                               std::uint64_t, std::size_t, std::size_t,
                                               std::span<std::span<const std::byte>>) noexcept;

}  // namespace bam::host::detail
