// SPDX-License-Identifier: Apache-2.0
// Identify Controller and Identify Namespace data structures (spec 5.15.2), the fields bam uses
// at their specified offsets, the rest reserved.
#pragma once

#include <bam/config.hpp>

#include <cstddef>
#include <cstdint>

namespace bam::nvme {

/// Identify Controller data structure (CNS 01h), 4096 bytes.
struct identify_controller {
  std::uint16_t vid;        ///< PCI vendor id
  std::uint16_t ssvid;      ///< PCI subsystem vendor id
  char sn[20];              ///< serial number, ASCII, space padded
  char mn[40];              ///< model number
  char fr[8];               ///< firmware revision
  std::uint8_t rab;         ///< recommended arbitration burst
  std::uint8_t ieee[3];
  std::uint8_t cmic;
  std::uint8_t mdts;        ///< maximum data transfer size: 2^mdts * CAP.MPSMIN pages, 0 = none
  std::uint16_t cntlid;
  std::uint32_t ver;        ///< same layout as the VS register
  std::uint8_t reserved84[512 - 84];
  std::uint8_t sqes;        ///< required [3:0] and maximum [7:4] SQ entry size, as 2^n
  std::uint8_t cqes;        ///< required [3:0] and maximum [7:4] CQ entry size, as 2^n
  std::uint16_t maxcmd;
  std::uint32_t nn;         ///< number of namespaces
  std::uint16_t oncs;       ///< optional NVM command support
  std::uint8_t reserved522[525 - 522];
  std::uint8_t vwc;         ///< volatile write cache present [0]
  std::uint8_t reserved526[4096 - 526];
};
static_assert(sizeof(identify_controller) == 4096);
static_assert(offsetof(identify_controller, sn) == 4);
static_assert(offsetof(identify_controller, mn) == 24);
static_assert(offsetof(identify_controller, fr) == 64);
static_assert(offsetof(identify_controller, mdts) == 77);
static_assert(offsetof(identify_controller, cntlid) == 78);
static_assert(offsetof(identify_controller, ver) == 80);
static_assert(offsetof(identify_controller, sqes) == 512);
static_assert(offsetof(identify_controller, cqes) == 513);
static_assert(offsetof(identify_controller, maxcmd) == 514);
static_assert(offsetof(identify_controller, nn) == 516);
static_assert(offsetof(identify_controller, oncs) == 520);
static_assert(offsetof(identify_controller, vwc) == 525);

/// LBA Format descriptor.
struct lba_format {
  std::uint32_t raw;
  BAM_HD constexpr std::uint32_t metadata_size() const { return raw & 0xffff; }
  /// LBA data size as 2^lbads bytes.
  BAM_HD constexpr std::uint32_t lbads() const { return (raw >> 16) & 0xff; }
  BAM_HD static constexpr lba_format make(std::uint32_t lbads) { return lba_format{lbads << 16}; }
};
static_assert(sizeof(lba_format) == 4);

/// Identify Namespace data structure (CNS 00h), 4096 bytes.
struct identify_namespace {
  std::uint64_t nsze;       ///< namespace size in logical blocks
  std::uint64_t ncap;       ///< namespace capacity
  std::uint64_t nuse;       ///< namespace utilization
  std::uint8_t nsfeat;
  std::uint8_t nlbaf;       ///< number of LBA formats, 0's based
  std::uint8_t flbas;       ///< formatted LBA size: index [3:0] into lbaf
  std::uint8_t mc;
  std::uint8_t dpc;
  std::uint8_t dps;
  std::uint8_t nmic;
  std::uint8_t rescap;
  std::uint8_t reserved32[104 - 32];
  std::uint8_t nguid[16];
  std::uint8_t eui64[8];
  lba_format lbaf[16];
  std::uint8_t reserved192[4096 - 192];

  /// Bytes per logical block of the formatted LBA size.
  BAM_HD constexpr std::uint32_t block_size() const {
    return std::uint32_t{1} << lbaf[flbas & 0xf].lbads();
  }
};
static_assert(sizeof(identify_namespace) == 4096);
static_assert(offsetof(identify_namespace, nlbaf) == 25);
static_assert(offsetof(identify_namespace, flbas) == 26);
static_assert(offsetof(identify_namespace, nguid) == 104);
static_assert(offsetof(identify_namespace, eui64) == 120);
static_assert(offsetof(identify_namespace, lbaf) == 128);

}  // namespace bam::nvme
