// CUDA kernels run on the CPU for verification when no GPU is present. The
// kernel compiles as C++ with a shim (threadIdx, blockIdx, __shared__ as
// static storage) and every block runs its threads as fibers (ucontext):
// __syncthreads() switches back to the block's scheduler, which resumes each
// thread in turn, so barriers and shared memory behave as on the device.
// Slow (one core), exact for kernels whose threads meet at the same barriers;
// used at the sizes tests and the no-GPU path verify at.
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernel/spec.hpp"
#include "run/cuda_atoms_emulation.hpp"

namespace lego::run {

// What lets CUDA compile as C++ on the CPU: dim3 and the launch built-ins
// (threadIdx, blockIdx, blockDim, gridDim), the qualifiers (__shared__ as
// static storage), lego_set_dims(launch) for gridDim and blockDim, and
// lego_unravel(i, x, y), a linear thread or block number as a dim3 (x
// fastest). __syncthreads() is the runner's to define.
std::string cuda_on_cpu_shim();

// C++ source: shim + kernel + `extern "C" void lego_emulate(void** args,
// const int64_t* launch /* grid x,y,z, block x,y,z */, char* stacks, int64_t stack_bytes)`.
// The warp atoms' tables come from `atom_of` (the atom library's).
std::string emulation_source(const std::string& cuda_source, const std::vector<kernel::ElementType>& types,
                             const AtomSource& atom_of = atom::resolve_atom);

constexpr std::int64_t kFiberStackBytes = 256 * 1024;
// Beyond this many threads in a launch emulation takes too long to be worth it.
constexpr std::int64_t kMaxEmulatedThreads = std::int64_t{1} << 20;
// Likewise beyond this much arithmetic (the kernel's flops formula): a
// 256^3 tensor-core GEMM (3.4e7) emulates in about a second, a 4096^3 one
// (1.4e11) would take more than an hour with few threads.
constexpr double kMaxEmulatedFlops = double(std::int64_t{1} << 28);

}  // namespace lego::run
