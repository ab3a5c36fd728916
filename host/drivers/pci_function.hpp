// SPDX-License-Identifier: Apache-2.0
// A PCI function seen through sysfs: its canonical address, the driver bound to it, its class,
// and the command register (bus mastering) in its configuration space. Shared by the VFIO and
// uio_pci_generic bindings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bam::host {

/// PCI class code of an NVMe controller (mass storage, non-volatile memory, NVMe interface).
inline constexpr std::uint32_t nvme_class_code = 0x010802;

/**
 * @brief The canonical form "dddd:bb:ss.f" of a PCI address; "bb:ss.f" gets domain 0000.
 * @throw bam::invalid_argument when `bdf` is not a PCI address
 */
[[nodiscard]] std::string canonical_bdf(std::string_view bdf);

/// /sys/bus/pci/devices/<bdf>
[[nodiscard]] std::string pci_sysfs_path(const std::string& bdf);

/// Name of the driver bound to `bdf`; nullopt when none is.
[[nodiscard]] std::optional<std::string> pci_driver_of(const std::string& bdf);

/**
 * @brief Checks that `bdf` exists, is an NVMe controller and is bound to `driver`.
 * @throw bam::system_error naming the BDF and what to do: "no such PCI function", "not an NVMe
 * controller (class ...)", "device not bound to <driver> (bound to <other>)"
 */
void require_nvme_bound_to(const std::string& bdf, std::string_view driver);

/**
 * @brief Sets Memory Space Enable and Bus Master Enable in the command register of a function
 * whose configuration space `config_fd` exposes from byte `config_offset` on (a VFIO config
 * region, or sysfs's `config` file at offset 0).
 * @throw bam::system_error naming `who` when the register cannot be read or written
 */
void enable_bus_master(int config_fd, std::uint64_t config_offset, std::string_view who);

}  // namespace bam::host
