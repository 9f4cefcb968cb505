// CPU variants as standalone C++ for a machine without LEGO Studio (the
// Slurm job directory, slurm.hpp): each variant_<n>.cpp is the kernel as the
// JIT compiles it, renamed apart, with its layouts' offsets and its
// registration; variant_<n>_reference.cpp its reference; harness_cpu.cpp a
// main that verifies each variant linked with it against its reference on
// random inputs packed into its layouts, times it, and writes Google
// Benchmark's JSON with LEGO Studio's fields (kernel, variant, verified,
// median_ms, gbs, gflops) on each benchmark.
//
//   c++ -std=c++17 -O3 -march=native -ffp-contract=fast -fopenmp harness_cpu.cpp
//       variant_0.cpp variant_0_reference.cpp -o bench && ./bench results.json
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"

namespace lego::run {

// Relative path -> contents. Throws LegoError for a CUDA instance.
std::map<std::string, std::string> cpu_bundle(const std::vector<kernel::Instance>& instances);

}  // namespace lego::run
