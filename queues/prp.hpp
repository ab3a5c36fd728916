// SPDX-License-Identifier: Apache-2.0
// Physical Region Page entries (spec 4.3): PRP1, PRP2 and chained PRP lists for transfers up to
// the controller's MDTS. Data buffers are fixed, so owners build PRPs once at set-up time.
#pragma once

#include <bam/config.hpp>

#include <cstddef>
#include <cstdint>

namespace bam::queues {

struct prp_pair {
  std::uint64_t prp1 = 0;
  std::uint64_t prp2 = 0;
};

/// Memory pages touched by `bytes` starting `offset` bytes into a page.
BAM_HD constexpr std::size_t prp_page_count(std::size_t offset, std::size_t bytes, std::size_t page_bytes) {
  return (offset + bytes + page_bytes - 1) / page_bytes;
}

/// Bytes of PRP list memory (whole pages) a transfer needs; 0 when PRP1/PRP2 suffice.
BAM_HD constexpr std::size_t prp_list_bytes(std::size_t offset, std::size_t bytes, std::size_t page_bytes) {
  const std::size_t pages = prp_page_count(offset, bytes, page_bytes);
  if (pages <= 2) return 0;
  const std::size_t per_list = page_bytes / 8;
  std::size_t remaining = pages - 1;  // entries after PRP1
  std::size_t lists = 1;
  while (remaining > per_list) {  // each full list page gives its last entry to the chain pointer
    remaining -= per_list - 1;
    ++lists;
  }
  return lists * page_bytes;
}

/**
 * @brief Builds the data pointer of a command.
 * @param bus_of callable: bus address of byte `o` of the buffer (pages may be discontiguous)
 * @param bytes transfer length; the buffer starts at bus_of(0), which may be inside a page
 * @param page_bytes the controller's memory page size (CC.MPS)
 * @param list host-writable PRP list memory of prp_list_bytes(...) bytes (unused if 0)
 * @param list_bus bus address of `list`; list pages must be bus-contiguous
 * @return PRP1 and PRP2 (second page or list pointer)
 */
template <class BusOf>
BAM_HD prp_pair build_prps(BusOf bus_of, std::size_t bytes, std::size_t page_bytes,
                           std::uint64_t* list, std::uint64_t list_bus) {
  const std::uint64_t first = bus_of(std::size_t{0});
  const std::size_t offset = std::size_t(first % page_bytes);
  const std::size_t pages = prp_page_count(offset, bytes, page_bytes);
  prp_pair p{first, 0};
  if (pages == 2) p.prp2 = bus_of(page_bytes - offset);
  if (pages <= 2) return p;

  p.prp2 = list_bus;
  const std::size_t per_list = page_bytes / 8;
  std::size_t slot = 0;  // index into `list`, across list pages
  for (std::size_t page = 1; page < pages; ++page) {
    const bool last_in_list_page = slot % per_list == per_list - 1;
    if (last_in_list_page && pages - page > 1) {  // chain to the next list page
      list[slot] = list_bus + (slot + 1) * 8;
      ++slot;
    }
    list[slot++] = bus_of(page * page_bytes - offset);
  }
  return p;
}

}  // namespace bam::queues
