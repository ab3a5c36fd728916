// SPDX-License-Identifier: Apache-2.0
// An emulated controller over heap memory behind an emulated IOMMU, with the raw test driver:
// what every emulated-controller test starts from.
#pragma once

#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/host/memory/heap_memory.hpp>
#include <bam/synthetic.hpp>
#include "tests/support/raw_nvme_driver.hpp"

#include <chrono>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

namespace bam::test {

/// Options for tests: two workers, short spinning (tests share two cores with the emulator).
inline host::emulated_controller::options test_options() {
  host::emulated_controller::options o;
  o.idle_spin_ns = 5'000;
  return o;
}

/// A RAM namespace whose blocks hold bam::synthetic content for `seed` (so reads can be checked).
inline std::shared_ptr<host::ram_store> filled_ram(std::uint32_t block_size, std::uint64_t n_blocks,
                                                   std::uint64_t seed) {
  auto ns = std::make_shared<host::ram_store>(block_size, n_blocks);
  host::fill_synthetic(*ns, seed);
  return ns;
}

/// heap → IOMMU (fresh IOVAs) → controller, and a raw driver (not yet enabled).
class emulator {
 public:
  explicit emulator(std::vector<std::shared_ptr<host::namespace_store>> namespaces,
                    host::emulated_controller::options opts = test_options())
      : ctrl_(heap_, iommu_, std::move(namespaces), std::move(opts)), driver_(ctrl_, dma_) {}

  [[nodiscard]] host::emulated_controller& ctrl() noexcept { return ctrl_; }
  [[nodiscard]] raw_nvme_driver& driver() noexcept { return driver_; }
  [[nodiscard]] host::emulated_iommu& iommu() noexcept { return iommu_; }
  [[nodiscard]] memory_resource& dma() noexcept { return dma_; }

 private:
  host::heap_memory heap_;
  host::emulated_iommu iommu_;
  host::iommu_memory dma_{heap_, iommu_};
  host::emulated_controller ctrl_;
  raw_nvme_driver driver_;
};

/// Polls `pred` until it holds; false after `timeout`.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = raw_nvme_driver::default_timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

/// Status type and code of a completion, for EXPECT_EQ.
inline std::pair<nvme::status_type, std::uint8_t> status_of(const nvme::completion& c) {
  return {c.status().sct(), c.status().sc()};
}
inline std::pair<nvme::status_type, std::uint8_t> generic(std::uint8_t sc) {
  return {nvme::status_type::generic, sc};
}
inline std::pair<nvme::status_type, std::uint8_t> specific(std::uint8_t sc) {
  return {nvme::status_type::command_specific, sc};
}

}  // namespace bam::test
