// `lego bench`, `lego ceilings` and `lego export`: the kernel commands.
// They start lego-worker processes, so they live apart from the layout
// commands (which the fuzzer drives in process).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "expr/expr.hpp"

namespace lego::cli {

bool is_kernel_command(const std::string& name);
// --set NAME=VALUE options as bindings; LegoError for anything else.
Env parse_sets(const std::vector<std::string>& sets);
int run_kernel_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
