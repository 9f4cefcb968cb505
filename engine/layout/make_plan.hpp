// One call from text-level AST to an evaluation plan: bind the extents,
// check every user GenP exhaustively, build the plan. What the CLI and GUI
// use. (In this codebase "compile" means only compiling code: the JIT's
// run::compile_cpp and NVRTC's run::compile_cuda.)
#pragma once

#include "layout/ast.hpp"
#include "layout/plan.hpp"

namespace lego {

Plan make_plan(const LayoutAst& layout, const Env& env);

}  // namespace lego
