// What a search (engine/search) measures with: a batch of variants run as one
// sweep, and their times; and the deadline a budget in seconds sets. Shared by
// `lego bench --strategy` and the app's Search..., which differ only in what
// they do with each outcome (the events).
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "kernel/variant.hpp"
#include "run/sweep_driver.hpp"

namespace lego::run {

struct BatchRun {
  SweepResult swept;
  // One per variant of the batch, in order: its median when it verified (or
  // was timed with verification off), -1 when it failed; a duplicate has the
  // time of the variant whose code it shares. The list ends at the first
  // variant the sweep did not finish (a cancel, a deadline).
  std::vector<double> times;
};

// The batch prepared for options.target and run as one sweep.
BatchRun run_batch(WorkerClient& worker, const kernel::KernelSpec& spec, const std::vector<kernel::Variant>& batch, const Roof& roof,
                   const SweepOptions& options, const SweepEvents& events, const std::atomic<bool>* cancel);

// Sets `cancel` when `seconds` have passed since it began, unless it is
// destroyed first; no deadline for seconds <= 0.
class Deadline {
 public:
  Deadline(double seconds, std::atomic<bool>& cancel);
  ~Deadline();
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  // The deadline passed and set `cancel` (the budget's stop, not a user's).
  bool spent() const { return spent_; }

 private:
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stop_ = false;
  std::atomic<bool> spent_{false};
  std::thread thread_;
};

}  // namespace lego::run
