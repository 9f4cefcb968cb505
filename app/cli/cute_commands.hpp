// `lego from-cute` and `lego to-cute`: CuTe's layout notation into the
// layout language and back (layout/cute).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lego::cli {

bool is_cute_command(const std::string& name);
int run_cute_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
