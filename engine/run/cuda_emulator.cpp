#include "run/cuda_emulator.hpp"

#include "run/cuda_atoms_emulation.hpp"
#include "run/executor.hpp"

namespace lego::run {

std::string cuda_on_cpu_shim() {
  return R"(#include <cstdint>
#define LEGO_CUDA_ON_CPU 1
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
#define __align__(n) __attribute__((aligned(n)))
// Every __shared__ variable goes in one section, which the JIT lists for the
// emulator (run/jit.cpp, list_shared_regions); `used` keeps the optimiser
// from folding a read of one never written to the zero it starts with.
#define __shared__ static __attribute__((section("lego_shared"), used))
)";
}

namespace {

const char* warp_rules_text() {
  return
#include "warp_rules_text.inc"
      ;
}

// Threads wait at a block barrier or at a warp collective. The scheduler
// runs every thread that can run until it waits or ends; then it releases
// each warp whose unfinished lanes all wait at a collective (computing the
// collective from what they left in their slots), and only when no thread
// can run and none waits at a collective, the barrier: so a barrier holds
// until every thread has reached it, however many collectives each passed.
constexpr const char* kSchedulerShim = R"lego(#include <ucontext.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
static ucontext_t lego_scheduler, *lego_fibers;
static int64_t lego_current;
enum : unsigned char { lego_runs, lego_at_barrier, lego_at_warp, lego_ended };
static unsigned char* lego_state;
static inline void lego_wait(unsigned char why) {
  lego_state[lego_current] = why;
  swapcontext(&lego_fibers[lego_current], &lego_scheduler);
}
static inline void __syncthreads() { lego_wait(lego_at_barrier); }
// The kernel's shared memory, listed by the JIT: poisoned when a block starts
// (a GPU's shared memory holds whatever the last block left, so a read
// before a write is a bug the emulator should not hide), and where an
// ldmatrix row or a cp.async destination must lie.
struct LegoSharedRegion {
  char* begin;
  unsigned long long bytes;
};
extern "C" const LegoSharedRegion lego_shared_regions[];
extern "C" const int lego_shared_region_count;
static inline bool lego_in_shared(const void* p, unsigned long long bytes) {
  for (int r = 0; r < lego_shared_region_count; ++r) {
    const char* begin = lego_shared_regions[r].begin;
    if ((const char*)p >= begin && (const char*)p + bytes <= begin + lego_shared_regions[r].bytes) return true;
  }
  return false;
}
// Three 32-bit words in turn, shifted by one each block: all bits set (NaN,
// -1: what a sum or an OR cannot hide), a huge positive value (2.7e36 as a
// float, 65504 as two halves, large as an int: a max or an AND cannot ignore
// it) and its negative (nor can a min). One value alone is lost by some
// reduction: fmaxf ignores NaN, AND keeps -1's bits.
static inline void lego_poison_shared(int64_t block) {
  static const uint32_t patterns[3] = {0xffffffffu, 0x7bff7bffu, 0xfbfffbffu};
  for (int r = 0; r < lego_shared_region_count; ++r) {
    char* p = lego_shared_regions[r].begin;
    const unsigned long long words = lego_shared_regions[r].bytes / 4;
    for (unsigned long long w = 0; w < words; ++w) std::memcpy(p + 4 * w, &patterns[(w + unsigned(block)) % 3], 4);
    std::memset(p + 4 * words, 0xff, lego_shared_regions[r].bytes % 4);
  }
}
// A lane's part in a warp collective: its value (up to 8 bytes), its
// operand (srcLane, delta or mask), the collective and its width; for an
// atom (ldmatrix, mma.sync, ...) its address and registers.
struct LegoWarpSlot {
  unsigned long long value;
  unsigned mask;  // the lanes that meet: the collective's mask
  int operand, kind, width;
  const void* address;
  uint32_t data[16];
};
static LegoWarpSlot* lego_slots;
enum { lego_syncwarp = 4, lego_atom_kind = 16 };  // atom k meets as kind lego_atom_kind + k
static void lego_atom_collective(int64_t first, int atom);
template <class T>
static inline T lego_shuffle(unsigned mask, int kind, T var, int operand, int width) {
  static_assert(sizeof(T) <= 8, "a warp shuffle moves at most 8 bytes per lane");
  LegoWarpSlot& slot = lego_slots[lego_current];
  slot.value = 0;
  std::memcpy(&slot.value, &var, sizeof(T));
  slot.mask = mask, slot.operand = operand, slot.kind = kind, slot.width = width;
  lego_wait(lego_at_warp);
  T out;
  std::memcpy(&out, &slot.value, sizeof(T));
  return out;
}
template <class T>
static inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
  return lego_shuffle(mask, lego_warp::shuffle_index, var, src_lane, width);
}
template <class T>
static inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return lego_shuffle(mask, lego_warp::shuffle_up, var, int(delta), width);
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return lego_shuffle(mask, lego_warp::shuffle_down, var, int(delta), width);
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  return lego_shuffle(mask, lego_warp::shuffle_xor, var, lane_mask, width);
}
static inline void __syncwarp(unsigned mask = 0xffffffffu) { lego_shuffle(mask, lego_syncwarp, 0, 0, 32); }
// The kernel's process sets this to its events' descriptor: a fault is
// reported as an error event (what the message says has no quotes or
// backslashes), then the process ends.
extern "C" {
int lego_events_fd = -1;
}
[[noreturn]] static void lego_emulation_fault(const char* what, int64_t warp) {
  char line[512];
  const int n = std::snprintf(line, sizeof line, "{\"event\":\"error\",\"message\":\"CUDA emulation, warp %lld: %s\"}\n", (long long)warp, what);
  if (lego_events_fd >= 0 && n > 0) (void)!write(lego_events_fd, line, size_t(n < int(sizeof line) ? n : int(sizeof line) - 1));
  std::fprintf(stderr, "CUDA emulation, warp %lld: %s\n", (long long)warp, what);
  std::_Exit(70);
}
// The collective the lanes of `group` (bit l: lane first + l) meet at; a
// lane reading one outside the group (undefined in CUDA) keeps its own value.
static void lego_warp_collective(int64_t first, unsigned group) {
  int kind = -1, width = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(group >> l & 1u)) continue;
    const LegoWarpSlot& slot = lego_slots[first + l];
    if (kind < 0) kind = slot.kind, width = slot.width;
    if (slot.kind != kind || slot.width != width)
      lego_emulation_fault("its lanes meet at different warp collectives: a divergent __shfl_sync, __syncwarp, ldmatrix, stmatrix or mma.sync", first / 32);
  }
  if (kind == lego_syncwarp) return;
  if (kind >= lego_atom_kind) {
    if (group != 0xffffffffu)
      lego_emulation_fault("only some of its lanes reach a warp-wide ldmatrix, stmatrix or mma.sync (all 32 must)", first / 32);
    lego_atom_collective(first, kind - lego_atom_kind);
    return;
  }
  if (width < 1 || width > 32 || (width & (width - 1)) != 0)
    lego_emulation_fault("the width of __shfl_sync is not a power of two up to 32", first / 32);
  unsigned long long values[32];
  for (int l = 0; l < 32; ++l)
    if (group >> l & 1u) values[l] = lego_slots[first + l].value;
  for (int l = 0; l < 32; ++l) {
    if (!(group >> l & 1u)) continue;
    const int source = lego_warp::shuffle_source(kind, l, lego_slots[first + l].operand, width);
    lego_slots[first + l].value = group >> source & 1u ? values[source] : values[l];
  }
}
)lego";

constexpr const char* kRunner = R"lego(
static void** lego_args;
static void lego_fiber() {
  lego_emulate_entry(lego_args);
  lego_cp_async_complete(lego_current, INT32_MAX);  // the device completes what a thread left in flight
  lego_state[lego_current] = lego_ended;
}
extern "C" void lego_emulate(void** args, const int64_t* launch, char* stacks, int64_t stack_bytes) {
  lego_set_dims(launch);
  const int64_t threads = launch[3] * launch[4] * launch[5], blocks = launch[0] * launch[1] * launch[2];
  ucontext_t fibers[1024];
  unsigned char state[1024];
  LegoWarpSlot slots[1024];
  lego_fibers = fibers;
  lego_state = state;
  lego_slots = slots;
  lego_args = args;
  for (int64_t b = 0; b < blocks; ++b) {
    blockIdx = lego_unravel(b, launch[0], launch[1]);
    lego_poison_shared(b);
    for (int64_t t = 0; t < threads; ++t) {
      getcontext(&fibers[t]);
      fibers[t].uc_stack.ss_sp = stacks + t * stack_bytes;
      fibers[t].uc_stack.ss_size = size_t(stack_bytes);
      fibers[t].uc_link = &lego_scheduler;
      makecontext(&fibers[t], lego_fiber, 0);
      state[t] = lego_runs;
      lego_copy_count[t] = lego_copy_groups[t] = 0;
    }
    for (;;) {
      for (int64_t t = 0; t < threads; ++t) {
        if (state[t] != lego_runs) continue;
        lego_current = t;
        threadIdx = lego_unravel(t, launch[3], launch[4]);
        swapcontext(&lego_scheduler, &fibers[t]);
      }
      // In each warp, the lanes of a collective's mask go on once every
      // unfinished lane of the mask waits there with that mask.
      bool released = false, at_barrier = false;
      int64_t stuck = -1;  // a warp some of whose lanes wait at a collective
      for (int64_t first = 0; first < threads; first += 32) {
        const int lanes = int(first + 32 < threads ? 32 : threads - first);
        const unsigned present = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        unsigned open = 0, waiting = 0;
        for (int l = 0; l < lanes; ++l) {
          if (state[first + l] == lego_ended) continue;
          open |= 1u << l;
          if (state[first + l] == lego_at_warp) waiting |= 1u << l;
          if (state[first + l] == lego_at_barrier) at_barrier = true;
        }
        for (int l = 0; l < lanes; ++l) {
          if (!(waiting >> l & 1u)) continue;
          const unsigned mask = slots[first + l].mask & present;
          if (!(mask >> l & 1u)) lego_emulation_fault("a lane's warp collective leaves the lane out of its mask", first / 32);
          unsigned group = 0;
          for (int k = 0; k < lanes; ++k)
            if (waiting >> k & 1u && (slots[first + k].mask & present) == mask) group |= 1u << k;
          if ((open & mask) != group) {  // a lane of the mask has not arrived (or waits with another mask)
            stuck = first / 32;
            continue;
          }
          lego_warp_collective(first, group);
          for (int k = 0; k < lanes; ++k)
            if (group >> k & 1u) state[first + k] = lego_runs;
          waiting &= ~group;
          released = true;
        }
      }
      if (released) continue;
      if (stuck >= 0) lego_emulation_fault("some lanes wait at a warp collective that others never reach", stuck);
      if (!at_barrier) break;  // every thread ended
      for (int64_t t = 0; t < threads; ++t)
        if (state[t] == lego_at_barrier) state[t] = lego_runs;
    }
  }
}
)lego";

}  // namespace

std::string emulation_source(const std::string& cuda_source, const std::vector<kernel::ElementType>& types, const AtomSource& atom_of) {
  return cuda_on_cpu_shim() + warp_rules_text() + kSchedulerShim + emulated_atoms_source(atom_of) + "#line 1 \"kernel\"\n" + cuda_source +
         entry_trampoline("lego_emulate_entry", "lego_kernel", types) + kRunner;
}

}  // namespace lego::run
