// Runs of consecutive positions, proved by ISL. A layout stores an index
// dimension in runs of R when every aligned run of R indices along it
// (k = R*q .. R*q + R - 1, the other indices fixed) sits at R consecutive
// positions: apply(.., k + 1, ..) == apply(.., k, ..) + 1 unless
// k % R == R - 1. Row-major rows are runs of the row length; BR^3 bricks
// store each dimension's innermost index in runs of BR. A template that
// knows R copies a run with one plain copy and no check at run time, and
// the compiler sees the structure the layout has.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layout/ast.hpp"

namespace lego::poly {

struct RunProof {
  std::int64_t run = 1;  // the longest run proved (a power of two dividing the extent); 1 when none is
  std::string evidence;  // one sentence: what was proved, or why nothing could be
};

// The longest run of at most `max_run` along index `dimension` of `layout`
// with every size bound by `env`.
RunProof prove_runs(const LayoutAst& layout, const Env& env, std::size_t dimension, std::int64_t max_run);

}  // namespace lego::poly
