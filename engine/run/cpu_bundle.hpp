// CPU variants as standalone C++ for a machine without LEGO Studio (the
// Slurm job directory, slurm.hpp): each variant_<n>_kernel.cpp is the kernel
// as the JIT compiles it, renamed apart, alone in its translation unit;
// variant_<n>.cpp its layouts' offsets and its registration;
// variant_<n>_reference.cpp its reference; harness_cpu.cpp a
// main that verifies each variant linked with it against its reference on
// random inputs packed into its layouts, times it, and writes Google
// Benchmark's JSON with LEGO Studio's fields (kernel, variant, verified,
// median_ms, gbs, gflops) on each benchmark.
//
// The kernel runs in the same process as the check, on a machine this tool
// does not watch: its "verified" is the bundle's word, and imported rows say
// so (project/results.hpp).
//
//   c++ -std=c++17 -O3 -march=native -ffp-contract=fast -fopenmp harness_cpu.cpp
//       variant_0.cpp variant_0_kernel.cpp variant_0_reference.cpp -o bench && ./bench results.json
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"

namespace lego::run {

// Relative path -> contents. Throws LegoError for a CUDA instance.
std::map<std::string, std::string> cpu_bundle(const std::vector<kernel::Instance>& instances);

}  // namespace lego::run
