// What `lego bench` checks of --only and --set before it sweeps or
// searches: a mistake there is one message, not the same failure once per
// variant after minutes of compiling.
#pragma once

#include <string>
#include <vector>

#include "expr/expr.hpp"
#include "kernel/spec.hpp"

namespace lego::cli {

// Each --only NAME=VALUE names one of the kernel's layouts and one of its
// alternatives, or one of its parameters and a value it takes (`sets`, the
// --set values, replace a parameter's own). LegoError saying what is there.
// Returns them with each parameter's value written as the variant ids
// write it (--only T=+16 keeps T=16).
std::vector<std::string> check_only(const kernel::KernelSpec& spec, const std::vector<std::string>& only, const Env& sets);

// A tensor's extent that names only parameters with one value (fixed in
// the project or by --set) is the same in every variant: below 1 it fails
// them all, so it is refused here, naming the tensor, the formula and the
// values. An extent over swept parameters is left to each variant's run.
void check_fixed_extents(const kernel::KernelSpec& spec, const Env& sets);

}  // namespace lego::cli
