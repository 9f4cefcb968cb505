// Loop nests from iteration layouts: the layout's hierarchy becomes nested
// loops that visit its elements in physical order, so inside the body every
// logical coordinate is an affine function of the loop variables (no div or
// mod per element, as the flat `L.inv(x)` form has).
//
// The loops are the mixed-radix digits of the layout's inverse (a tiled
// Row/Col/RegP layout compiles to one linear plan step: each digit adds
// digit * multiplier to one coordinate). The digits' box, narrowed by
// ExpandBy's original extents, is a quasi-affine set; ISL's AST generator
// (isl_ast_build, as Tiramisu uses it) scans it in lexicographic order and
// gives the loop bounds and guards. A layout that is not one linear step
// (GenP pieces: antidiag, swizzle, morton, user lambdas; chains that do not
// fuse) has no such nest: the caller falls back to the flat form and says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "expr/expr.hpp"
#include "layout/ast.hpp"

namespace lego::poly {

struct Loop {
  std::string var;          // the loop variable
  std::int64_t extent;      // its full range [0, extent); ISL may tighten the bounds
  int coordinate;           // the logical coordinate it advances
  std::int64_t multiplier;  // coordinate += multiplier * var
};

struct LoopNest {
  std::vector<std::string> coordinates;
  std::vector<Loop> loops;  // outer to inner
  // Outer to inner, each opening one brace: "for (..) {", "if (..) {", or
  // "{ const int64_t v = ..;" for a loop of one iteration.
  std::vector<std::string> headers;
  std::vector<std::string> header_loop;  // per header: the variable a for loop walks, else empty
  // The headers' indices that are plain for loops over [0, extent) with
  // unit step, in order: the candidates for OpenMP collapse and simd.
  std::vector<int> rectangular;
  bool guarded = false;  // some header is an if (ExpandBy's partial tiles)
};

// Why no nest exists, for the variant's notes; empty when one does.
struct LoopNestResult {
  LoopNest nest;
  std::string fallback;
};

// `coordinates` names the layout's logical coordinates (its rank). Loop
// variables are named `<coordinate>_<level>` (outer level 0). Throws
// LegoError for a layout that does not bind under env.
LoopNestResult build_loop_nest(const LayoutAst& layout, const Env& env, const std::vector<std::string>& coordinates);

// The coordinates as C declarations over the loop variables:
// "const int64_t i = 8 * i_0 + i_1; ..." (coordinates with no loop are 0).
std::string coordinate_declarations(const LoopNest& nest);

}  // namespace lego::poly
