// The `lego` command line, callable in process (tests, fuzzing) as well as
// from main(). Exit codes: 0 success, 2 user error (message on err), 70 an
// internal error (a bug: please report).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lego::cli {

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
