// Remote benchmarking of Triton variants: `lego export-bench` writes each
// variant's Python module twice, at the kernel's sizes (timed) and at its
// verification sizes (checked against the reference), with a host library
// that fills inputs, packs them into the variant's layouts and checks the
// outputs (the CUDA bundle's own code, behind a C interface), the PyTorch
// baselines the project names, and bench.py. On a GPU machine bench.py times
// each variant with CUDA events beside its baseline and a device copy, in one
// process, and writes the results `lego import-results` merges. On a CPU,
// `bench.py --interpret` runs the verification-size modules under Triton's
// interpreter, so that a bundle is known to run before it meets a device.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"

namespace lego::run {

// One variant of a Triton kernel: at its own sizes, and at its verification
// sizes where the kernel has smaller ones (else `verify` is empty).
struct TritonBundleVariant {
  const kernel::KernelSpec* spec = nullptr;
  kernel::Instance timed;
  std::optional<kernel::Instance> verify;
};

// Relative path -> contents.
std::map<std::string, std::string> triton_bundle(const std::vector<TritonBundleVariant>& variants);

}  // namespace lego::run
