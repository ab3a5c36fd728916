// SPDX-License-Identifier: Apache-2.0
// The 16-byte NVMe completion queue entry (spec 4.6) and status codes (spec 4.6.1).
#pragma once

#include <bam/config.hpp>

#include <cstddef>
#include <cstdint>

namespace bam::nvme {

/// Status Code Type.
enum class status_type : std::uint8_t {
  generic = 0,
  command_specific = 1,
  media = 2,
  path = 3,
  vendor = 7,
};

/// Generic command status codes (SCT 0).
namespace generic_status {
inline constexpr std::uint8_t success = 0x00;
inline constexpr std::uint8_t invalid_opcode = 0x01;
inline constexpr std::uint8_t invalid_field = 0x02;
inline constexpr std::uint8_t command_id_conflict = 0x03;
inline constexpr std::uint8_t data_transfer_error = 0x04;
inline constexpr std::uint8_t internal_error = 0x06;
inline constexpr std::uint8_t abort_requested = 0x07;
inline constexpr std::uint8_t invalid_namespace = 0x0b;
inline constexpr std::uint8_t invalid_prp_offset = 0x13;
inline constexpr std::uint8_t lba_out_of_range = 0x80;
inline constexpr std::uint8_t capacity_exceeded = 0x81;
}  // namespace generic_status

/// Command-specific status codes (SCT 1).
namespace specific_status {
inline constexpr std::uint8_t completion_queue_invalid = 0x00;
inline constexpr std::uint8_t invalid_queue_identifier = 0x01;
inline constexpr std::uint8_t invalid_queue_size = 0x02;
inline constexpr std::uint8_t invalid_queue_deletion = 0x0c;
}  // namespace specific_status

/// Media and data integrity errors (SCT 2).
namespace media_status {
inline constexpr std::uint8_t unrecovered_read_error = 0x81;
}  // namespace media_status

/// The 15-bit status field of a completion (bits [31:17] of dword 3), without the phase bit.
struct status_field {
  std::uint16_t raw = 0;  ///< status << 1 | phase, as stored in the entry's last halfword
  BAM_HD constexpr std::uint8_t sc() const { return std::uint8_t((raw >> 1) & 0xff); }
  BAM_HD constexpr status_type sct() const { return status_type((raw >> 9) & 0x7); }
  BAM_HD constexpr bool more() const { return (raw >> 14) & 1; }
  BAM_HD constexpr bool dnr() const { return (raw >> 15) & 1; }
  BAM_HD constexpr bool ok() const { return (raw >> 1) == 0; }
  /// Status halfword (phase 0) for a given type and code.
  BAM_HD static constexpr status_field make(status_type sct, std::uint8_t sc, bool dnr = false) {
    return status_field{std::uint16_t((std::uint32_t(sc) << 1) | (std::uint32_t(sct) << 9) |
                                      (std::uint32_t(dnr) << 15))};
  }
};

/**
 * @brief Completion queue entry.
 *
 * Dwords 2 and 3 (SQ head, SQ id, command id, status and phase) are one 64-bit word: the
 * controller writes them last, and a poller reads them with one 8-byte atomic load, so the
 * phase bit and the fields it guards always come from the same completion.
 */
struct completion {
  std::uint32_t dw0;   ///< command specific result
  std::uint32_t dw1;   ///< reserved
  std::uint64_t dw23;  ///< sq_head [15:0], sq_id [31:16], cid [47:32], phase [48], status [63:49]

  BAM_HD static constexpr std::uint64_t make_dw23(std::uint16_t sq_head, std::uint16_t sq_id,
                                                  std::uint16_t cid, status_field status, bool phase) {
    return std::uint64_t{sq_head} | (std::uint64_t{sq_id} << 16) | (std::uint64_t{cid} << 32) |
           (std::uint64_t(std::uint16_t(status.raw & 0xfffe) | std::uint16_t(phase)) << 48);
  }
  BAM_HD static constexpr std::uint16_t sq_head_of(std::uint64_t dw23) { return std::uint16_t(dw23); }
  BAM_HD static constexpr std::uint16_t sq_id_of(std::uint64_t dw23) { return std::uint16_t(dw23 >> 16); }
  BAM_HD static constexpr std::uint16_t cid_of(std::uint64_t dw23) { return std::uint16_t(dw23 >> 32); }
  BAM_HD static constexpr bool phase_of(std::uint64_t dw23) { return ((dw23 >> 48) & 1) != 0; }
  BAM_HD static constexpr status_field status_of(std::uint64_t dw23) {
    return status_field{std::uint16_t((dw23 >> 48) & 0xfffe)};
  }

  BAM_HD constexpr std::uint16_t sq_head() const { return sq_head_of(dw23); }
  BAM_HD constexpr std::uint16_t sq_id() const { return sq_id_of(dw23); }
  BAM_HD constexpr std::uint16_t cid() const { return cid_of(dw23); }
  BAM_HD constexpr bool phase() const { return phase_of(dw23); }
  BAM_HD constexpr status_field status() const { return status_of(dw23); }
};
static_assert(sizeof(completion) == 16);
static_assert(offsetof(completion, dw23) == 8);

/// Human-readable name of a status, for error messages.
constexpr const char* status_name(status_type sct, std::uint8_t sc) {
  switch (sct) {
    case status_type::generic:
      switch (sc) {
        case generic_status::success: return "success";
        case generic_status::invalid_opcode: return "invalid command opcode";
        case generic_status::invalid_field: return "invalid field in command";
        case generic_status::command_id_conflict: return "command id conflict";
        case generic_status::data_transfer_error: return "data transfer error";
        case generic_status::internal_error: return "internal error";
        case generic_status::abort_requested: return "command abort requested";
        case generic_status::invalid_namespace: return "invalid namespace or format";
        case generic_status::invalid_prp_offset: return "PRP offset invalid";
        case generic_status::lba_out_of_range: return "LBA out of range";
        case generic_status::capacity_exceeded: return "capacity exceeded";
        default: return "generic status (unnamed)";
      }
    case status_type::command_specific:
      switch (sc) {
        case specific_status::completion_queue_invalid: return "completion queue invalid";
        case specific_status::invalid_queue_identifier: return "invalid queue identifier";
        case specific_status::invalid_queue_size: return "invalid queue size";
        case specific_status::invalid_queue_deletion: return "invalid queue deletion";
        default: return "command specific status (unnamed)";
      }
    case status_type::media:
      return sc == media_status::unrecovered_read_error ? "unrecovered read error"
                                                        : "media error (unnamed)";
    case status_type::path: return "path related status";
    default: return "vendor specific status";
  }
}

}  // namespace bam::nvme
