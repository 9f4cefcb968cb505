// `lego bench`, `lego ceilings` and `lego export`: the kernel commands.
// They start lego-worker processes, so they live apart from the layout
// commands (which the fuzzer drives in process).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "expr/expr.hpp"

namespace lego::cli {

bool is_kernel_command(const std::string& name);
int run_kernel_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
