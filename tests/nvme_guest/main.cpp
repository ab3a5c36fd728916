// SPDX-License-Identifier: Apache-2.0
// nvme_guest_test: bam's user-space NVMe drivers against QEMU's emulated NVMe controllers,
// inside the guest that tests/qemu/run-guest.py boots (as root).
//
//   nvme_guest_test --binding=vfio|uio|kmod [--pages=huge|small] [--hugepages=N] [gtest flags]
//
// --pages=small takes DMA memory in 4 KiB pages (and first scatters the free ones), so buffers
// get per-page bus addresses and rings must fit one page.
// Each test rebinds the controllers it uses to the binding's Linux driver (vfio-pci,
// uio_pci_generic, or bam.ko from /bam) and brings them up with host::controller. The
// controllers are those of tests/nvme_guest/CMakeLists.txt (guest_support.hpp, `topology`).
#include "tests/nvme_guest/guest_support.hpp"

#include <bam/host/drivers/posix_io.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  auto& c = bam::guest::config();
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    try {
      if (a.starts_with("--binding=")) {
        c.binding = bam::host::parse_binding_kind(a.substr(10));
      } else if (a == "--pages=small") {
        c.pages = bam::host::page_policy::small;
        bam::guest::fragment_physical_memory(std::size_t{64} << 20);  // so that 4 KiB pages scatter
      } else if (a == "--pages=huge") {
        c.pages = bam::host::page_policy::huge;
      } else if (a.starts_with("--hugepages=")) {
        bam::host::write_text("/proc/sys/vm/nr_hugepages", a.substr(12), "nvme_guest_test", "reserve hugepages");
      } else {
        std::fprintf(stderr, "nvme_guest_test: unknown argument %s\n", argv[i]);
        return 2;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nvme_guest_test: %s\n", e.what());
      return 2;
    }
  }
  std::printf("nvme_guest_test: binding %s, %s pages\n", bam::host::to_string(c.binding),
              c.pages == bam::host::page_policy::small ? "4 KiB" : "2 MiB");
  return RUN_ALL_TESTS();
}
