// `lego convert FROM TO`: the plan that moves a tile from one thread-value
// layout to another (engine/convert), step by step, with every alternative's
// cost and the reason it lost.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lego::cli {

bool is_convert_command(const std::string& name);
int run_convert_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
