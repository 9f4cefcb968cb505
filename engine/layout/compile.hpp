// One call from text-level AST to an evaluation plan: bind the extents,
// check every user GenP exhaustively, compile. What the CLI and GUI use.
#pragma once

#include "layout/ast.hpp"
#include "layout/plan.hpp"

namespace lego {

Plan compile(const LayoutAst& layout, const Env& env);

}  // namespace lego
