// `lego atom`: the MMA and copy atoms' thread-value tables (atom/atoms).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lego::cli {

bool is_atom_command(const std::string& name);
int run_atom_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
