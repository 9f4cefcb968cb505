// A kernel's library baselines (OpenBLAS, BLIS, a copy): code the project
// names, compiled as the reference is (the parameters as constants), every
// tensor row-major, timed beside the variants at their sizes.
#pragma once

#include "kernel/instantiate.hpp"

namespace lego::kernel {

// The baseline at the variant's parameters; its instance's variant is
// "baseline:<name>" and `baseline` is set.
Instance instantiate_baseline(const KernelSpec& spec, const Baseline& baseline, const Env& parameters);

}  // namespace lego::kernel
