#include "run/quiet_gap.hpp"

#include <thread>

namespace lego::run {

bool QuietGap::before_timing(const void* worker) {
  bool other = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    other = last_ != nullptr && last_ != worker;
    last_ = worker;
  }
  // Outside the lock: a timing on another thread (the studio's sessions) does not queue behind this wait.
  if (other) std::this_thread::sleep_for(gap_);
  return other;
}

QuietGap& timing_gap() {
  static QuietGap gap(std::chrono::milliseconds(250));
  return gap;
}

}  // namespace lego::run
