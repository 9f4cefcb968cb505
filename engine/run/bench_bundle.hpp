// Remote benchmarking: `lego export-bench` writes every CUDA variant of a
// kernel as standalone source plus a harness and a Makefile that need only
// nvcc. On a GPU machine `make run` verifies each variant against the
// reference (random inputs packed into the variant's layouts), times it
// with CUDA events (warm-up, median of at least 20 runs, buffers rotated
// through more than twice the L2) and writes results.json, which
// `lego import-results` merges into the project.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "run/outcome.hpp"

namespace lego::run {

// Relative path -> contents: harness.hpp, harness.cu, Makefile, README.md and
// one variant_<n>.cu per instance.
std::map<std::string, std::string> bench_bundle(const std::vector<kernel::Instance>& instances);

}  // namespace lego::run
