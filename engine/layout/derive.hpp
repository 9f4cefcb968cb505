// One call from a layout to printed index expressions: what `lego expr`,
// the benchmarks and (later) template instantiation use.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "layout/ast.hpp"
#include "sym/print.hpp"

namespace lego {

// A variable of an enclosing generated loop, in [0, extent).
struct LoopVariable {
  std::string name;
  std::int64_t extent = 1;
};

struct DeriveRequest {
  bool inverse = false;
  std::vector<std::string> indices;  // names (symbolic, ranged by the layout) or integers
  std::vector<Expr> constraints;
  sym::Lang lang = sym::Lang::C;
  // A second prover for side conditions (engine/poly's ISL bridge); layout
  // does not depend on poly, so the caller plugs it in.
  std::function<bool(sym::Ref, const sym::Facts&)> second_prover;
  // Inside a generated loop nest an index is an affine function of the loop
  // variables (sum coefficient * variable); a name found here is replaced by
  // it, so div/mod of tiled layouts fold onto the loops' own digits.
  std::vector<LoopVariable> loop_variables;
  std::map<std::string, std::vector<std::pair<std::string, std::int64_t>>> index_definitions;
  // Print x // 2^k and x % 2^k as x >> k and x & (2^k - 1) (x proved
  // nonnegative). Generated kernels want it: a compiler folds
  // ((8*kb + 3) >> 3) to kb by known bits, but not a signed (8*kb + 3) / 8.
  // The readable / and % stay for what a person reads (lego expr, the app).
  bool strength_reduce = false;
  // Record the simplifier's rewrites (lego expr --explain).
  bool explain = false;
};

// One rewrite the simplifier made: the rule's name, the node before and
// after (Python-syntax text), and the side condition the prover showed.
struct ExplainedStep {
  std::string rule, before, after, condition;
};
// "rule: before  ->  after   [condition]", as lego expr --explain and the
// app's expressions panel show it.
std::string to_string(const ExplainedStep& step);

struct DeriveResult {
  std::vector<std::string> exprs;  // one per result; for MLIR one func.func computing all
  // C/CUDA/Triton: shared subexpressions, defined before the results use them.
  std::vector<std::pair<std::string, std::string>> temporaries;
  std::vector<std::string> arguments;  // MLIR: the function's arguments (indices, then sizes)
  std::vector<std::string> assumptions;
  int ops = 0;
  // C/CUDA: int32_t when every intermediate value is proved to fit, else int64_t.
  std::string index_type = "int64_t";
  // apply: for each loop variable the single result is affine in, its
  // coefficient (the access's stride along that loop); absent otherwise.
  std::map<std::string, std::int64_t> strides;
  // apply: the constant term when the result is affine over the loop
  // variables alone (offset = constant + sum stride * variable).
  std::optional<std::int64_t> constant;
  // explain: every rewrite in order, and how often each rule fired.
  std::vector<ExplainedStep> steps;
  std::vector<std::pair<std::string, int>> rule_hits;
};

// Throws LegoError on a wrong index count, an out-of-range integer index, or
// anything the derivation rejects.
DeriveResult derive(const LayoutAst& layout, const Env& env, const DeriveRequest& request);

}  // namespace lego
