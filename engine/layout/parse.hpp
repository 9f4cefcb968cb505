// The layout language: the spec's notation, which is also the paper
// artifact's Python notation, plus `let`/`where` programs:
//
//   let B = 8; let N = 64
//   where N % B == 0
//   let Bricks = OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3, [B]*3)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "expr/expr.hpp"
#include "layout/ast.hpp"

namespace lego {

// The whole text must be one layout. Throws LegoError with a span.
LayoutAst parse_layout(std::string_view text);

struct Definition {
  std::string name;
  Span span;
  std::variant<Expr, LayoutAst> value;
};

struct Program {
  std::vector<Definition> definitions;
  std::vector<Expr> constraints;    // `where` clauses
  std::optional<LayoutAst> result;  // a trailing bare layout, if any
};

Program parse_program(std::string_view text);

// Evaluates the integer definitions in order on top of `bindings` (values
// given by the user win over defaults in the file) and checks every `where`
// clause; throws LegoError at a violated clause.
Env evaluate_program_env(const Program& program, const Env& bindings);

// The layout to use: `name` if given, else the trailing bare layout, else
// the last layout definition.
const LayoutAst& select_layout(const Program& program, std::string_view name);

}  // namespace lego
