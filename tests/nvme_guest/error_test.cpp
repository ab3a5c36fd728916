// SPDX-License-Identifier: Apache-2.0
// Errors QEMU's controller reports, and one it never answers: each must surface as the right
// bam exception, with the queue, command and status (or the time limit) in it.
#include "tests/nvme_guest/guest_support.hpp"

#include <bam/error.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/nvme/registers.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace bam::guest {
namespace {

using namespace std::chrono_literals;

TEST(Errors, LbaOutOfRangeNamesQueueLbaAndStatus) {
  opened c = open_controller(topology::main_ctrl);
  host::block_io io = c.io(2);
  dma_buffer buf = c.buffer(8192);
  const std::uint64_t end = c.ctrl->namespace_by_id(1).n_blocks;
  try {
    io.read(1, end - 4, 8, buf);  // the last 4 blocks exist, the next 4 do not
    FAIL() << "a read past the end of the namespace succeeded";
  } catch (const nvme_error& e) {
    EXPECT_EQ(e.status_code_type(), std::uint8_t(nvme::status_type::generic));
    EXPECT_EQ(e.status_code(), nvme::generic_status::lba_out_of_range);
    EXPECT_EQ(e.context().queue, 3);
    EXPECT_EQ(e.context().lba, end - 4);
    EXPECT_EQ(e.context().n_blocks, 8u);
    EXPECT_EQ(e.context().nsid, 1u);
    const std::string what = e.what();
    EXPECT_NE(what.find("queue 3"), std::string::npos) << what;
    EXPECT_NE(what.find("LBA " + std::to_string(end - 4)), std::string::npos) << what;
    EXPECT_NE(what.find("LBA out of range"), std::string::npos) << what;
  }
  EXPECT_THROW(io.write(1, end, 1, buf), nvme_error);
  io.read(1, end - 4, 4, buf);  // an error status leaves the queue pair usable
}

TEST(Errors, InvalidQueueIdentifiersOnCreate) {
  opened c = open_controller(topology::limited_ctrl, 4);  // all 4 queue pairs QEMU allows
  dma_buffer ring = c.buffer(4096);
  try {
    c.ctrl->admin(nvme::make_create_io_cq(topology::limited_ioqpairs + 1, 64, ring.bus_at(0)), "create I/O CQ 5");
    FAIL() << "creating a CQ beyond max_ioqpairs succeeded";
  } catch (const nvme_error& e) {
    EXPECT_EQ(e.status_code_type(), std::uint8_t(nvme::status_type::command_specific));
    EXPECT_EQ(e.status_code(), nvme::specific_status::invalid_queue_identifier);
    EXPECT_EQ(e.context().queue, 0);  // the admin queue
    EXPECT_NE(std::string(e.what()).find("invalid queue identifier"), std::string::npos) << e.what();
  }
  try {
    c.ctrl->admin(nvme::make_create_io_cq(1, 64, ring.bus_at(0)), "create I/O CQ 1 again");
    FAIL() << "creating an existing CQ succeeded";
  } catch (const nvme_error& e) {
    EXPECT_EQ(e.status_code_type(), std::uint8_t(nvme::status_type::command_specific));
    EXPECT_EQ(e.status_code(), nvme::specific_status::invalid_queue_identifier);
  }
  EXPECT_THROW(c.ctrl->admin(nvme::make_delete_io_sq(7), "delete I/O SQ 7"), nvme_error);
  EXPECT_EQ(c.ctrl->io_queues().size(), 4u);
  c.ctrl->shutdown();  // the queues that exist are deleted cleanly
}

/// Runs `open` and returns the bam::system_error message it throws ("" when it throws none).
template <class Open>
std::string open_error(Open open) {
  try {
    open();
  } catch (const system_error& e) {
    return e.what();
  }
  return "";
}

TEST(Errors, BindingErrorsNameTheDeviceAndTheStep) {
  bind(topology::limited_ctrl, "nvme");
  const std::string bdf = bdf_of(topology::limited_ctrl);
  const std::string vfio = open_error([&] { host::vfio_device d(bdf); });
  EXPECT_NE(vfio.find(bdf + ": device not bound to vfio-pci (bound to nvme)"), std::string::npos) << vfio;
  const std::string uio = open_error([&] { host::uio_device d(bdf); });
  EXPECT_NE(uio.find(bdf + ": device not bound to uio_pci_generic (bound to nvme)"), std::string::npos) << uio;
  const std::string kmod = open_error([] { host::kmod_device d("/dev/bam9"); });
  EXPECT_NE(kmod.find("/dev/bam9: open the bam kernel module's device"), std::string::npos) << kmod;
  EXPECT_NE(kmod.find("No such file or directory"), std::string::npos) << kmod;
  const std::string missing = open_error([] { host::vfio_device d("0000:00:1f.7"); });
  EXPECT_NE(missing.find("0000:00:1f.7: no such PCI function"), std::string::npos) << missing;
  // VFIO's no-IOMMU mode is refused for a device that has an IOMMU group.
  bind(topology::limited_ctrl, "vfio-pci");
  const std::string noiommu = open_error([&] { host::vfio_device d(bdf, host::vfio_options{.no_iommu = true}); });
  EXPECT_NE(noiommu.find("no-IOMMU mode asked for, but IOMMU group"), std::string::npos) << noiommu;
}

TEST(Errors, ACommandTheControllerNeverAnswersTimesOut) {
  opened c;
  c.binding = open_binding(topology::main_ctrl);
  host::controller_options options = controller_options();
  options.admin_timeout = 500ms;
  c.ctrl = std::make_unique<host::controller>(c.binding->bar(), c.binding->memory(), options);
  host::block_io io = c.io(0, 300ms);
  dma_buffer buf = c.buffer(4096);
  io.read(1, 0, 8, buf);
  // Disable the controller behind the driver's back: QEMU drops its queues and ignores the
  // doorbells, so the next command is fetched by no one and never completes.
  const host::bar_view bar = c.ctrl->bar();
  bar.write32(nvme::reg::cc, nvme::cc_register{bar.read32(nvme::reg::cc)}.set_en(false).raw);
  const auto start = std::chrono::steady_clock::now();
  try {
    io.read(1, 77, 8, buf);
    FAIL() << "a read completed on a disabled controller";
  } catch (const timeout_error& e) {
    EXPECT_EQ(e.context().queue, 1);
    EXPECT_EQ(e.context().lba, 77u);
    EXPECT_NE(std::string(e.what()).find("did not complete within 300 ms"), std::string::npos) << e.what();
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 5s);
  EXPECT_TRUE(io.queue().failed());
  EXPECT_THROW(io.read(1, 0, 8, buf), error);  // a failed pair refuses new commands at once
  // The admin queue is just as dead: its commands time out too.
  EXPECT_THROW(c.ctrl->admin(nvme::make_get_number_of_queues(), "get number of queues"), timeout_error);
}

}  // namespace
}  // namespace bam::guest
