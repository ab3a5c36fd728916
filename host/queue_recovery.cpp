// SPDX-License-Identifier: Apache-2.0
#include "host/queue_recovery.hpp"

#include "host/idle_backoff.hpp"

#include <bam/detail/atomic.hpp>
#include <bam/error.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <utility>

namespace bam::host {

namespace {

std::uint64_t now_ns() {
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count());
}

std::uint32_t load_acquire(std::uint32_t& word) {
  return bam::detail::system_atomic<std::uint32_t>(word).load(cuda::std::memory_order_acquire);
}

}  // namespace

queue_recovery::queue_recovery(std::vector<controller*> controllers, options opts) : options_(opts) {
  BAM_EXPECTS(std::none_of(controllers.begin(), controllers.end(), [](const controller* c) { return c == nullptr; }),
              "queue_recovery: null controller");
  std::size_t most_pairs = 0;
  for (controller* c : controllers) {
    if (!c->claim_recovery()) {
      for (const controller_watch& w : watched_) w.ctrl->release_recovery();
      throw invalid_argument("queue_recovery: controller " + std::to_string(c->index()) +
                             " is already watched by another queue_recovery (one at a time per controller)");
    }
    controller_watch w;
    w.ctrl = c;
    w.retry_delay = options_.retry_min;
    for (std::size_t i = 0; i < c->io_queues().size(); ++i) {
      w.pairs.push_back(pair_watch{&c->io_health(i), c->io_queues()[i].qid()});
    }
    most_pairs = std::max(most_pairs, w.pairs.size());
    watched_.push_back(std::move(w));
  }
  ready_.reserve(most_pairs);
  thread_ = std::thread([this] { run(); });
}

queue_recovery::~queue_recovery() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  for (const controller_watch& w : watched_) w.ctrl->release_recovery();
}

std::vector<recovery_event> queue_recovery::take_events() {
  std::lock_guard lock(mutex_);
  return std::exchange(events_, {});
}

std::string queue_recovery::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

std::uint64_t queue_recovery::errors() const {
  std::lock_guard lock(mutex_);
  return errors_;
}

void queue_recovery::run() {
  // Sleeps as idle_backoff would, but on the condition variable, so that the destructor need
  // not wait for a sleep to end.
  const idle_backoff pace(0, std::uint32_t(std::chrono::nanoseconds(options_.min_sleep).count()),
                          std::uint32_t(std::chrono::nanoseconds(options_.max_sleep).count()));
  std::uint64_t idle_since = now_ns();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    bool acted = false;
    for (controller_watch& c : watched_) {
      try {
        acted |= serve(c);
      } catch (const std::exception& e) {  // only allocation failures get here
        note_failure(c, e.what());
      }
    }
    const std::uint64_t now = now_ns();
    if (acted) idle_since = now;
    lock.lock();
    wake_.wait_for(lock, std::chrono::nanoseconds(pace.sleep_ns(now - idle_since)), [this] { return stopping_; });
  }
}

bool queue_recovery::serve(controller_watch& c) {
  // A pair is ready when it failed (`failed` != `recreated`: not yet handed back) and no thread
  // uses it (`quiesced` == `failed`). A pair in service, or handed back and waiting for its
  // next user, is not: its user may submit at any moment.
  const std::uint64_t now = now_ns();
  ready_.clear();
  for (std::size_t i = 0; i < c.pairs.size(); ++i) {
    pair_watch& p = c.pairs[i];
    const std::uint32_t failed = load_acquire(p.health->failed);
    // Relaxed would do: this thread is the only writer of `recreated`.
    const std::uint32_t recreated = load_acquire(p.health->recreated);
    if (failed == 0 || failed == recreated) continue;
    if (p.failed != failed) {
      p.failed = failed;
      p.failed_at_ns = now;
      // Relaxed: written before `failed`, whose acquire load above orders it.
      p.lost_cid = bam::detail::system_atomic<std::uint32_t>(p.health->lost_cid).load(cuda::std::memory_order_relaxed);
    }
    if (load_acquire(p.health->quiesced) == failed) ready_.push_back(i);
  }
  if (ready_.empty() || now < c.retry_at_ns) return false;

  if (c.needs_reset && ready_.size() == c.pairs.size()) {
    try {
      c.ctrl->reset();
    } catch (const std::exception& e) {
      note_failure(c, e.what());
      return true;
    }
    c.needs_reset = false;
    c.retry_delay = options_.retry_min;
    for (const std::size_t i : ready_) hand_back(c, i, true);
    return true;
  }
  // The cheap way; after a failure, it is retried (with the back-off) until every pair of the
  // controller is ready for the reset.
  for (const std::size_t i : ready_) {
    try {
      c.ctrl->recreate_io_queue(i, c.pairs[i].lost_cid);
    } catch (const std::exception& e) {
      c.needs_reset = true;
      note_failure(c, e.what());
      return true;
    }
    c.needs_reset = false;
    c.retry_delay = options_.retry_min;
    hand_back(c, i, false);
  }
  return true;
}

void queue_recovery::hand_back(controller_watch& c, std::size_t i, bool controller_reset) {
  pair_watch& p = c.pairs[i];
  bam::detail::system_atomic<std::uint32_t>(p.health->recreated).store(p.failed, cuda::std::memory_order_release);
  const double ms = double(now_ns() - p.failed_at_ns) / 1e6;
  const recovery_event e{c.ctrl->index(), p.qid,
                         p.lost_cid <= 0xffff ? std::uint16_t(p.lost_cid) : recovery_event::no_cid, ms,
                         controller_reset};
  std::lock_guard lock(mutex_);
  events_.push_back(e);
}

void queue_recovery::note_failure(controller_watch& c, const char* what) noexcept {
  c.retry_at_ns = now_ns() + std::uint64_t(std::chrono::nanoseconds(c.retry_delay).count());
  c.retry_delay = std::min(c.retry_delay * 2, options_.retry_max);
  std::lock_guard lock(mutex_);
  ++errors_;
  if (last_error_ == what) return;
  std::fprintf(stderr, "bam: queue recovery: %s\n", what);
  try {
    last_error_ = what;
  } catch (const std::bad_alloc&) {
    last_error_.clear();  // the count and stderr still tell
  }
}

}  // namespace bam::host
