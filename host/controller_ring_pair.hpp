// SPDX-License-Identifier: Apache-2.0
// Internal to host::controller (controller.cpp, controller_recovery.cpp): the memory of one
// queue pair and whether its queues exist at the controller.
#pragma once

#include <bam/host/controller.hpp>

namespace bam::host {

/// Memory of one queue pair: the rings the controller reads and writes, and the control words
/// the driving threads share (queue_control, ready words, mailboxes in one allocation).
struct controller::ring_pair {
  dma_buffer sq;
  dma_buffer cq;
  dma_buffer control;
  dma_buffer health;  ///< I/O pairs: the queue_health record, in host memory the driver reaches
  queues::queue_pair_ref<> ref;
  // Whether the I/O queues exist at the controller (created, not yet deleted); read and written
  // with admin_mutex_ held, so that a recovery that failed half-way resumes where it stopped.
  bool cq_live = false;
  bool sq_live = false;
};

}  // namespace bam::host
