#include "run/quiet_gap.hpp"

#include <thread>

namespace lego::run {

bool QuietGap::before_timing(const void* worker) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const bool other = last_ != nullptr && last_ != worker;
  last_ = worker;
  if (other) std::this_thread::sleep_for(gap_);
  return other;
}

QuietGap& timing_gap() {
  static QuietGap gap(std::chrono::milliseconds(250));
  return gap;
}

}  // namespace lego::run
