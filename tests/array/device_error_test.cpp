// SPDX-License-Identifier: Apache-2.0
// The device error record's kind: the host (host::throw_device_error, behind page_cache::check)
// reads what failed from `kind`, never from field values (NVMe opcode 0 is Flush; queue,
// namespace and LBA 0 are valid), and turns each kind into its exception.
#include <bam/device_error.hpp>
#include <bam/page_cache.hpp>

#include "host/io_error.hpp"
#include <bam/host/emulator/ram_store.hpp>
#include "tests/array/array_rig.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

using namespace bam;
using test::rig;
using test::small_cache;

TEST(DeviceError, TheFirstRecordKeepsItsKindAndEveryFailureIsCounted) {
  device_error slot{};
  device_error access{};
  access.kind = device_error_kind::access;
  access.status = std::uint8_t(status::no_slot);
  access.index = 7;
  device_error command{};
  command.kind = device_error_kind::command;
  command.status = std::uint8_t(status::io_error);
  record_error(&slot, access);
  record_error(&slot, command);
  EXPECT_EQ(slot.claimed, 1u);
  EXPECT_EQ(slot.kind, device_error_kind::access);
  EXPECT_EQ(slot.status, std::uint8_t(status::no_slot));
  EXPECT_EQ(slot.index, 7u);
  EXPECT_EQ(slot.count, 2u);
  EXPECT_EQ(device_error{}.kind, device_error_kind::none) << "a clear record has no kind";
}

TEST(DeviceError, ACommandWhoseFieldsAreAllZeroIsStillACommand) {
  // A Flush (opcode 0) on queue 0 of namespace 0 at LBA 0: every field that used to tell
  // "no command" is zero, yet a command failed.
  device_error e{};
  e.claimed = 1;
  e.count = 1;
  e.kind = device_error_kind::command;
  e.status = std::uint8_t(status::io_error);
  e.sct = std::uint8_t(nvme::status_type::generic);
  e.sc = nvme::generic_status::lba_out_of_range;
  e.opcode = std::uint8_t(nvme::io_opcode::flush);
  try {
    host::throw_device_error(e, "'zeros'");
    FAIL() << "expected nvme_error";
  } catch (const nvme_error& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("bam::array 'zeros', page 0: flush on controller 0, queue 0, command id 0"), std::string::npos)
        << what;
    EXPECT_NE(what.find("LBA out of range"), std::string::npos) << what;
    EXPECT_EQ(err.context().opcode, std::uint8_t(nvme::io_opcode::flush));
    EXPECT_EQ(err.status_code(), nvme::generic_status::lba_out_of_range);
  }
}

TEST(DeviceError, AnAccessFailureNamesTheElementAndNoCommand) {
  device_error e{};
  e.claimed = 1;
  e.count = 2;
  e.kind = device_error_kind::access;
  e.status = std::uint8_t(status::timeout);
  e.index = 42;
  e.opcode = std::uint8_t(nvme::io_opcode::read);  // ignored: an access failure has no command
  e.qid = 3;
  try {
    host::throw_device_error(e, "'values'");
    FAIL() << "expected timeout_error";
  } catch (const timeout_error& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("bam::array 'values': access to element 42 timed out"), std::string::npos) << what;
    EXPECT_NE(what.find("(2 failures; the first is described)"), std::string::npos) << what;
    EXPECT_EQ(what.find("queue"), std::string::npos) << what;
    EXPECT_EQ(err.context().queue, 0u);
  }
  e.status = std::uint8_t(status::no_slot);
  EXPECT_THROW(host::throw_device_error(e, "'values'"), error);
  e.status = std::uint8_t(status::out_of_range);
  EXPECT_THROW(host::throw_device_error(e, "'values'"), invalid_argument);
}

TEST(DeviceError, AClaimedRecordWithoutAKindIsAnError) {
  device_error e{};
  e.claimed = 1;  // as a writer that forgot the kind would leave it
  e.status = std::uint8_t(status::io_error);
  try {
    host::throw_device_error(e, "'values'");
    FAIL() << "expected bam::error";
  } catch (const nvme_error& err) {
    FAIL() << "a record without a kind was read as a command: " << err.what();
  } catch (const error& err) {
    EXPECT_NE(std::string(err.what()).find("neither access nor command"), std::string::npos) << err.what();
  }
}

TEST(DeviceError, AFailedFlushCommandReachesTheHostAsAFlush) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  rig r({{ram}}, small_cache(4096, 4));
  const auto a = r.cache->map<std::uint32_t>({.name = "values", .nsid = 1, .start_lba = 0, .count = 1024});
  a.store(3, 33u);
  host::fault_rule bad;
  bad.match.opcode = std::uint8_t(nvme::io_opcode::flush);
  bad.action.sct = nvme::status_type::generic;
  bad.action.sc = nvme::generic_status::internal_error;
  r.drives[0]->emu->faults().add(bad);
  try {
    r.cache->flush();
    FAIL() << "expected nvme_error";
  } catch (const nvme_error& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find(": flush on controller 0"), std::string::npos) << what;
    EXPECT_EQ(err.context().opcode, std::uint8_t(nvme::io_opcode::flush));
    EXPECT_EQ(err.context().nsid, 1u);
  }
}

}  // namespace
