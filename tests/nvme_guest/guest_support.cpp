// SPDX-License-Identifier: Apache-2.0
#include "tests/nvme_guest/guest_support.hpp"

#include "host/drivers/pci_function.hpp"
#include <bam/error.hpp>
#include <bam/host/drivers/posix_io.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace bam::guest {

run_config& config() {
  static run_config c;
  return c;
}

void fragment_physical_memory(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) host::throw_errno("fragment_physical_memory", "mmap", errno);
  ::madvise(p, bytes, MADV_NOHUGEPAGE);
  auto* base = static_cast<std::byte*>(p);
  for (std::size_t off = 0; off < bytes; off += 4096) base[off] = std::byte{1};
  for (std::size_t off = 0; off < bytes; off += 2 * 4096) ::munmap(base + off, 4096);
}

std::string bdf_of(int index) { return "0000:00:0" + std::to_string(index + 1) + ".0"; }

std::string driver_for(host::binding_kind kind) {
  switch (kind) {
    case host::binding_kind::vfio:
      return "vfio-pci";
    case host::binding_kind::uio:
      return "uio_pci_generic";
    case host::binding_kind::kmod:
      return "bam";
  }
  return "";
}

namespace {

void load_bam_module() {
  if (::access("/sys/module/bam", F_OK) == 0) return;
  const host::unique_fd ko = host::open_or_throw("/bam/bam.ko", O_RDONLY, "bam.ko", "load the kernel module");
  if (::syscall(SYS_finit_module, ko.get(), "", 0) != 0 && errno != EEXIST)
    host::throw_errno("bam.ko", "finit_module", errno);
}

/// The /dev/bamN of a controller bound to bam.
std::string kmod_node(const std::string& bdf) {
  const std::string dir = host::pci_sysfs_path(bdf) + "/bam";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) host::throw_errno(bdf, "find its /dev/bamN (" + dir + ")", errno);
  std::string name;
  while (const dirent* e = ::readdir(d))
    if (std::string_view(e->d_name).starts_with("bam")) name = e->d_name;
  ::closedir(d);
  if (name.empty()) throw error(bdf + ": no bamN under " + dir);
  return "/dev/" + name;
}

}  // namespace

void bind(int index, const std::string& driver) {
  const std::string bdf = bdf_of(index);
  const std::string sysfs = host::pci_sysfs_path(bdf);
  if (driver == "bam") load_bam_module();
  if (host::pci_driver_of(bdf) == driver) return;
  host::write_text(sysfs + "/driver_override", driver, bdf, "set driver_override");
  if (host::pci_driver_of(bdf)) host::write_text(sysfs + "/driver/unbind", bdf, bdf, "unbind its driver");
  host::write_text("/sys/bus/pci/drivers_probe", bdf, bdf, "probe drivers");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (host::pci_driver_of(bdf) != driver) {
    if (std::chrono::steady_clock::now() > deadline) throw error(bdf + ": did not bind to " + driver);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::unique_ptr<host::nvme_binding> open_binding(int index) {
  const run_config& c = config();
  bind(index, driver_for(c.binding));
  host::binding_options o;
  o.memory.pages = c.pages;
  const std::string bdf = bdf_of(index);
  // devtmpfs creates /dev/bamN and /dev/vfio/N asynchronously after the bind.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    try {
      return std::make_unique<host::nvme_binding>(c.binding,
                                                  c.binding == host::binding_kind::kmod ? kmod_node(bdf) : bdf, o);
    } catch (const system_error&) {
      if (std::chrono::steady_clock::now() > deadline) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

host::controller_options controller_options(std::uint32_t io_queue_pairs) {
  host::controller_options o;
  o.io_queue_pairs = io_queue_pairs;
  o.queue_depth = config().pages == host::page_policy::small ? 64 : 256;
  o.driver = host::io_driver::cpu;
  return o;
}

host::block_io opened::io(std::size_t queue, std::chrono::milliseconds timeout) {
  host::block_io_options o;
  o.timeout = timeout;
  if (config().pages == host::page_policy::small)
    o.max_transfer_bytes = std::min<std::size_t>(std::size_t{2} << 20, ctrl->max_transfer_bytes());
  return host::block_io(*ctrl, binding->memory(), queue, o);
}

opened open_controller(int index, std::uint32_t io_queue_pairs) {
  opened o;
  o.binding = open_binding(index);
  o.ctrl =
      std::make_unique<host::controller>(o.binding->bar(), o.binding->memory(), controller_options(io_queue_pairs));
  return o;
}

}  // namespace bam::guest
