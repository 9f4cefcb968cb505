// Bijectivity for all sizes, without values. By the algebra's correctness
// theorem (paper III-B) a chain is a bijection when every GenP is one and
// every OrderBy has the GroupBy's size; the derivation reduces those size
// equalities symbolically, so when none is left and every GenP is a library
// bijection whose preconditions hold for all sizes, the layout is proved
// bijective for every value of its symbols (>= 1, under the constraints).
// Otherwise the verdict is "unknown", with what is missing.
#pragma once

#include <string>
#include <vector>

#include "layout/ast.hpp"
#include "layout/plan.hpp"

namespace lego {

struct SymbolicVerdict {
  bool proved = false;
  std::string evidence;
  std::vector<std::string> symbols;  // the unbound sizes
  std::string shape, size;           // printed symbolically
  LayoutClass layout_class = LayoutClass::General;
};

SymbolicVerdict check_symbolic(const LayoutAst& layout, const Env& env, const std::vector<Expr>& constraints);

}  // namespace lego
