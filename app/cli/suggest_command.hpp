// `lego suggest`: ranked, explained layouts for one buffer of a kernel
// (engine/run/suggest), as a table or JSON.
#pragma once

#include <ostream>
#include <string>

#include "expr/expr.hpp"

namespace lego::cli {

struct SuggestRequest {
  std::string project, kernel, buffer;
  Env sets;
  std::size_t top = 10;
  std::size_t verify = 5;  // the first N run against the reference
  std::size_t apply = 0;   // rank to add to the project (0: none)
  std::string name;        // its alternative's name (default: the candidate's)
  bool json = false;
  std::string target;  // --target; empty: the project's, else this machine
};

int suggest(const SuggestRequest& request, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
