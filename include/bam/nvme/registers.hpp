// SPDX-License-Identifier: Apache-2.0
// NVMe controller registers (NVM Express Base Specification 1.4, section 3.1): the layout of
// BAR0 and typed accessors over each register's raw value. No bitfields, no type punning.
#pragma once

#include <bam/config.hpp>

#include <cstddef>
#include <cstdint>

namespace bam::nvme {

namespace detail {
/// Bits [lo, lo+width) of `v`.
BAM_HD constexpr std::uint64_t bits(std::uint64_t v, unsigned lo, unsigned width) {
  return (v >> lo) & ((std::uint64_t{1} << width) - 1);
}
/// `v` with bits [lo, lo+width) replaced by `field`.
BAM_HD constexpr std::uint64_t with_bits(std::uint64_t v, unsigned lo, unsigned width,
                                         std::uint64_t field) {
  const std::uint64_t mask = ((std::uint64_t{1} << width) - 1) << lo;
  return (v & ~mask) | ((field << lo) & mask);
}
}  // namespace detail

/// Register offsets in BAR0.
namespace reg {
inline constexpr std::size_t cap = 0x00;    ///< Controller Capabilities (64 bit)
inline constexpr std::size_t vs = 0x08;     ///< Version
inline constexpr std::size_t intms = 0x0c;  ///< Interrupt Mask Set
inline constexpr std::size_t intmc = 0x10;  ///< Interrupt Mask Clear
inline constexpr std::size_t cc = 0x14;     ///< Controller Configuration
inline constexpr std::size_t csts = 0x1c;   ///< Controller Status
inline constexpr std::size_t nssr = 0x20;   ///< NVM Subsystem Reset
inline constexpr std::size_t aqa = 0x24;    ///< Admin Queue Attributes
inline constexpr std::size_t asq = 0x28;    ///< Admin Submission Queue Base Address (64 bit)
inline constexpr std::size_t acq = 0x30;    ///< Admin Completion Queue Base Address (64 bit)
inline constexpr std::size_t doorbells = 0x1000;  ///< first doorbell (SQ 0 tail)
}  // namespace reg

/// CAP: Controller Capabilities.
struct cap_register {
  std::uint64_t raw = 0;
  /// Maximum Queue Entries Supported, 0's based.
  BAM_HD constexpr std::uint32_t mqes() const { return std::uint32_t(detail::bits(raw, 0, 16)); }
  /// Contiguous Queues Required.
  BAM_HD constexpr bool cqr() const { return detail::bits(raw, 16, 1) != 0; }
  /// Timeout: worst-case time for CSTS.RDY to change, in 500 ms units.
  BAM_HD constexpr std::uint32_t to() const { return std::uint32_t(detail::bits(raw, 24, 8)); }
  /// Doorbell Stride: doorbells are (4 << DSTRD) bytes apart.
  BAM_HD constexpr std::uint32_t dstrd() const { return std::uint32_t(detail::bits(raw, 32, 4)); }
  /// Command Sets Supported (bit 0: NVM command set).
  BAM_HD constexpr std::uint32_t css() const { return std::uint32_t(detail::bits(raw, 37, 8)); }
  /// Memory Page Size Minimum/Maximum: 2^(12 + MPSMIN/MAX) bytes.
  BAM_HD constexpr std::uint32_t mpsmin() const { return std::uint32_t(detail::bits(raw, 48, 4)); }
  BAM_HD constexpr std::uint32_t mpsmax() const { return std::uint32_t(detail::bits(raw, 52, 4)); }

  BAM_HD constexpr cap_register& set_mqes(std::uint32_t v) { raw = detail::with_bits(raw, 0, 16, v); return *this; }
  BAM_HD constexpr cap_register& set_cqr(bool v) { raw = detail::with_bits(raw, 16, 1, v); return *this; }
  BAM_HD constexpr cap_register& set_to(std::uint32_t v) { raw = detail::with_bits(raw, 24, 8, v); return *this; }
  BAM_HD constexpr cap_register& set_dstrd(std::uint32_t v) { raw = detail::with_bits(raw, 32, 4, v); return *this; }
  BAM_HD constexpr cap_register& set_css(std::uint32_t v) { raw = detail::with_bits(raw, 37, 8, v); return *this; }
  BAM_HD constexpr cap_register& set_mpsmin(std::uint32_t v) { raw = detail::with_bits(raw, 48, 4, v); return *this; }
  BAM_HD constexpr cap_register& set_mpsmax(std::uint32_t v) { raw = detail::with_bits(raw, 52, 4, v); return *this; }
};

/// VS: Version (major.minor.tertiary).
struct vs_register {
  std::uint32_t raw = 0;
  BAM_HD constexpr std::uint32_t major() const { return std::uint32_t(detail::bits(raw, 16, 16)); }
  BAM_HD constexpr std::uint32_t minor() const { return std::uint32_t(detail::bits(raw, 8, 8)); }
  BAM_HD static constexpr vs_register make(std::uint32_t mjr, std::uint32_t mnr, std::uint32_t ter = 0) {
    return vs_register{(mjr << 16) | (mnr << 8) | ter};
  }
};

/// CC.SHN values.
enum class shutdown_notification : std::uint32_t { none = 0, normal = 1, abrupt = 2 };

/// CC: Controller Configuration.
struct cc_register {
  std::uint32_t raw = 0;
  BAM_HD constexpr bool en() const { return detail::bits(raw, 0, 1) != 0; }
  BAM_HD constexpr std::uint32_t css() const { return std::uint32_t(detail::bits(raw, 4, 3)); }
  /// Memory Page Size: 2^(12 + MPS) bytes.
  BAM_HD constexpr std::uint32_t mps() const { return std::uint32_t(detail::bits(raw, 7, 4)); }
  BAM_HD constexpr std::uint32_t ams() const { return std::uint32_t(detail::bits(raw, 11, 3)); }
  BAM_HD constexpr shutdown_notification shn() const {
    return shutdown_notification(detail::bits(raw, 14, 2));
  }
  /// I/O Submission/Completion Queue Entry Size: 2^n bytes (6 and 4 for NVM).
  BAM_HD constexpr std::uint32_t iosqes() const { return std::uint32_t(detail::bits(raw, 16, 4)); }
  BAM_HD constexpr std::uint32_t iocqes() const { return std::uint32_t(detail::bits(raw, 20, 4)); }

  BAM_HD constexpr cc_register& set_en(bool v) { raw = std::uint32_t(detail::with_bits(raw, 0, 1, v)); return *this; }
  BAM_HD constexpr cc_register& set_css(std::uint32_t v) { raw = std::uint32_t(detail::with_bits(raw, 4, 3, v)); return *this; }
  BAM_HD constexpr cc_register& set_mps(std::uint32_t v) { raw = std::uint32_t(detail::with_bits(raw, 7, 4, v)); return *this; }
  BAM_HD constexpr cc_register& set_ams(std::uint32_t v) { raw = std::uint32_t(detail::with_bits(raw, 11, 3, v)); return *this; }
  BAM_HD constexpr cc_register& set_shn(shutdown_notification v) { raw = std::uint32_t(detail::with_bits(raw, 14, 2, std::uint32_t(v))); return *this; }
  BAM_HD constexpr cc_register& set_iosqes(std::uint32_t v) { raw = std::uint32_t(detail::with_bits(raw, 16, 4, v)); return *this; }
  BAM_HD constexpr cc_register& set_iocqes(std::uint32_t v) { raw = std::uint32_t(detail::with_bits(raw, 20, 4, v)); return *this; }
};

/// CSTS.SHST values.
enum class shutdown_status : std::uint32_t { normal = 0, occurring = 1, complete = 2 };

/// CSTS: Controller Status.
struct csts_register {
  std::uint32_t raw = 0;
  BAM_HD constexpr bool rdy() const { return detail::bits(raw, 0, 1) != 0; }
  /// Controller Fatal Status.
  BAM_HD constexpr bool cfs() const { return detail::bits(raw, 1, 1) != 0; }
  BAM_HD constexpr shutdown_status shst() const { return shutdown_status(detail::bits(raw, 2, 2)); }

  BAM_HD constexpr csts_register& set_rdy(bool v) { raw = std::uint32_t(detail::with_bits(raw, 0, 1, v)); return *this; }
  BAM_HD constexpr csts_register& set_cfs(bool v) { raw = std::uint32_t(detail::with_bits(raw, 1, 1, v)); return *this; }
  BAM_HD constexpr csts_register& set_shst(shutdown_status v) { raw = std::uint32_t(detail::with_bits(raw, 2, 2, std::uint32_t(v))); return *this; }
};

/// AQA: Admin Queue Attributes (sizes are 0's based).
struct aqa_register {
  std::uint32_t raw = 0;
  BAM_HD constexpr std::uint32_t asqs() const { return std::uint32_t(detail::bits(raw, 0, 12)); }
  BAM_HD constexpr std::uint32_t acqs() const { return std::uint32_t(detail::bits(raw, 16, 12)); }
  BAM_HD static constexpr aqa_register make(std::uint32_t sq_entries, std::uint32_t cq_entries) {
    return aqa_register{((sq_entries - 1) & 0xfffu) | (((cq_entries - 1) & 0xfffu) << 16)};
  }
};

/// The register block at the start of BAR0, as laid out by the specification.
struct registers {
  std::uint64_t cap;
  std::uint32_t vs;
  std::uint32_t intms;
  std::uint32_t intmc;
  std::uint32_t cc;
  std::uint32_t reserved0;
  std::uint32_t csts;
  std::uint32_t nssr;
  std::uint32_t aqa;
  std::uint64_t asq;
  std::uint64_t acq;
};
static_assert(offsetof(registers, cap) == reg::cap);
static_assert(offsetof(registers, vs) == reg::vs);
static_assert(offsetof(registers, intms) == reg::intms);
static_assert(offsetof(registers, intmc) == reg::intmc);
static_assert(offsetof(registers, cc) == reg::cc);
static_assert(offsetof(registers, csts) == reg::csts);
static_assert(offsetof(registers, nssr) == reg::nssr);
static_assert(offsetof(registers, aqa) == reg::aqa);
static_assert(offsetof(registers, asq) == reg::asq);
static_assert(offsetof(registers, acq) == reg::acq);
static_assert(sizeof(registers) == 0x38);
static_assert(sizeof(cap_register) == 8 && sizeof(cc_register) == 4 && sizeof(csts_register) == 4);

/// Byte offset of submission queue `qid`'s tail doorbell in BAR0 (spec 3.1.24).
BAM_HD constexpr std::size_t sq_tail_doorbell_offset(std::uint32_t qid, std::uint32_t dstrd) {
  return reg::doorbells + (2 * std::size_t{qid}) * (std::size_t{4} << dstrd);
}
/// Byte offset of completion queue `qid`'s head doorbell in BAR0.
BAM_HD constexpr std::size_t cq_head_doorbell_offset(std::uint32_t qid, std::uint32_t dstrd) {
  return reg::doorbells + (2 * std::size_t{qid} + 1) * (std::size_t{4} << dstrd);
}
static_assert(sq_tail_doorbell_offset(0, 0) == 0x1000 && cq_head_doorbell_offset(0, 0) == 0x1004);
static_assert(sq_tail_doorbell_offset(3, 4) == 0x1000 + 6 * 64);

}  // namespace bam::nvme
