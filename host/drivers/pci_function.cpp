// SPDX-License-Identifier: Apache-2.0
#include "host/drivers/pci_function.hpp"

#include <bam/error.hpp>
#include <bam/host/drivers/posix_io.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cerrno>
#include <cstdio>

namespace bam::host {

namespace {

bool hex_digits(std::string_view s, std::size_t n) {
  if (s.size() != n) return false;
  for (const char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string canonical_bdf(std::string_view bdf) {
  std::string s(bdf);
  if (s.size() == 7) s = "0000:" + s;
  const bool ok = s.size() == 12 && hex_digits(std::string_view(s).substr(0, 4), 4) && s[4] == ':' &&
                  hex_digits(std::string_view(s).substr(5, 2), 2) && s[7] == ':' &&
                  hex_digits(std::string_view(s).substr(8, 2), 2) && s[10] == '.' && s[11] >= '0' && s[11] <= '7';
  if (!ok)
    throw invalid_argument("'" + std::string(bdf) +
                           "' is not a PCI address (expected dddd:bb:ss.f, e.g. 0000:01:00.0)");
  return lower(s);
}

std::string pci_sysfs_path(const std::string& bdf) { return "/sys/bus/pci/devices/" + bdf; }

std::optional<std::string> pci_driver_of(const std::string& bdf) {
  return link_basename(pci_sysfs_path(bdf) + "/driver");
}

void require_nvme_bound_to(const std::string& bdf, std::string_view driver) {
  struct stat st {};
  if (::stat(pci_sysfs_path(bdf).c_str(), &st) != 0) throw_errno(bdf, "no such PCI function", errno);
  const auto cls = read_text(pci_sysfs_path(bdf) + "/class");
  if (cls && std::strtoul(cls->c_str(), nullptr, 16) != nvme_class_code)
    throw system_error(bdf + ": not an NVMe controller (PCI class " + *cls + ", expected 0x010802)");
  const auto bound = pci_driver_of(bdf);
  if (bound != driver)
    throw system_error(bdf + ": device not bound to " + std::string(driver) + " (" +
                       (bound ? "bound to " + *bound : std::string("no driver")) + "); bind it with: echo " +
                       std::string(driver) + " > " + pci_sysfs_path(bdf) + "/driver_override; echo " + bdf + " > " +
                       pci_sysfs_path(bdf) + "/driver/unbind; echo " + bdf +
                       " > /sys/bus/pci/drivers_probe (see docs/real-nvme.md)");
}

void enable_bus_master(int config_fd, std::uint64_t config_offset, std::string_view who) {
  constexpr std::uint64_t command_register = 4;
  constexpr std::uint16_t memory_space = 1u << 1;
  constexpr std::uint16_t bus_master = 1u << 2;
  std::uint16_t cmd = 0;
  if (::pread(config_fd, &cmd, sizeof cmd, off_t(config_offset + command_register)) != sizeof cmd)
    throw_errno(who, "read the PCI command register", errno);
  if ((cmd & (memory_space | bus_master)) == (memory_space | bus_master)) return;
  cmd = std::uint16_t(cmd | memory_space | bus_master);
  if (::pwrite(config_fd, &cmd, sizeof cmd, off_t(config_offset + command_register)) != sizeof cmd)
    throw_errno(who, "enable bus mastering (PCI command register)", errno);
}

}  // namespace bam::host
