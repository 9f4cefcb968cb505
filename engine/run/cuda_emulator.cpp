#include "run/cuda_emulator.hpp"

#include "run/executor.hpp"

namespace lego::run {

std::string cuda_on_cpu_shim() {
  return R"(#include <cstdint>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
static dim3 threadIdx, blockIdx, blockDim, gridDim;
static inline dim3 lego_unravel(int64_t i, int64_t x, int64_t y) { return {unsigned(i % x), unsigned(i / x % y), unsigned(i / (x * y))}; }
static inline void lego_set_dims(const int64_t* launch) {  // grid x, y, z, block x, y, z
  gridDim = {unsigned(launch[0]), unsigned(launch[1]), unsigned(launch[2])};
  blockDim = {unsigned(launch[3]), unsigned(launch[4]), unsigned(launch[5])};
}
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
)";
}

std::string emulation_source(const std::string& cuda_source, const std::vector<kernel::ElementType>& types) {
  const std::string shim = cuda_on_cpu_shim() + R"(#include <ucontext.h>
static ucontext_t lego_scheduler, *lego_fibers;
static int64_t lego_current;
static inline void __syncthreads() { swapcontext(&lego_fibers[lego_current], &lego_scheduler); }
#line 1 "kernel"
)";
  const std::string runner = R"(
static void** lego_args;
static bool* lego_done;
static void lego_fiber() {
  lego_emulate_entry(lego_args);
  lego_done[lego_current] = true;
}
extern "C" void lego_emulate(void** args, const int64_t* launch, char* stacks, int64_t stack_bytes) {
  lego_set_dims(launch);
  const int64_t threads = launch[3] * launch[4] * launch[5], blocks = launch[0] * launch[1] * launch[2];
  ucontext_t fibers[1024];
  bool done[1024];
  lego_fibers = fibers;
  lego_done = done;
  lego_args = args;
  for (int64_t b = 0; b < blocks; ++b) {
    blockIdx = lego_unravel(b, launch[0], launch[1]);
    for (int64_t t = 0; t < threads; ++t) {
      getcontext(&fibers[t]);
      fibers[t].uc_stack.ss_sp = stacks + t * stack_bytes;
      fibers[t].uc_stack.ss_size = size_t(stack_bytes);
      fibers[t].uc_link = &lego_scheduler;
      makecontext(&fibers[t], lego_fiber, 0);
      done[t] = false;
    }
    for (bool running = true; running;) {
      running = false;
      for (int64_t t = 0; t < threads; ++t) {
        if (done[t]) continue;
        running = true;
        lego_current = t;
        threadIdx = lego_unravel(t, launch[3], launch[4]);
        swapcontext(&lego_scheduler, &fibers[t]);
      }
    }
  }
}
)";
  return shim + cuda_source + entry_trampoline("lego_emulate_entry", "lego_kernel", types) + runner;
}

}  // namespace lego::run
