// A quiet gap before a timing in another worker process than the last one.
//
// A worker's threads spin for a while after its last kernel returns before
// they sleep: libgomp's (our kernels', BLIS's) for milliseconds, OpenBLAS's
// pthreads for 2^28 cycles, about a tenth of a second. A timing that starts
// in another process while they spin shares the cores with them: in one
// `lego bench` of matmul at x86-64-v3 on a 2-core machine, whichever library
// was timed right after the other took 160 ms against its 100 ms, and a
// quarter of a second's gap took both to 83 ms. A sweep times its baselines,
// then its variants in one worker, so it waits a few times; side-by-side
// rounds wait before each timing of a library and of the winner after one
// (a baseline that is not a library runs in the variants' worker).
#pragma once

#include <chrono>
#include <mutex>

namespace lego::run {

class QuietGap {
 public:
  explicit QuietGap(std::chrono::milliseconds gap) : gap_(gap) {}
  // Before a timing in `worker` (any identity of a worker process): waits
  // the gap when the last timing was in another one. Returns whether it did.
  bool before_timing(const void* worker);

 private:
  std::chrono::milliseconds gap_;
  std::mutex mutex_;
  const void* last_ = nullptr;
};

// The one every timing in this process goes through (run_variant).
QuietGap& timing_gap();

}  // namespace lego::run
