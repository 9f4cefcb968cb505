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
  bool json = false;
};

int suggest(const SuggestRequest& request, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
