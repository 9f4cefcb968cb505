// MLIR printer: a func.func over `index` values in the arith (and math, for
// isqrt) dialects, one SSA value per node of the hash-consed DAG, so shared
// subexpressions are computed once. Floor semantics are exact everywhere
// (arith.floordivsi; remsi only where the prover shows both operands fit).
#pragma once

#include <string>
#include <vector>

#include "sym/prover.hpp"
#include "sym/sym.hpp"

namespace lego::sym {

// func.func @name(%arg: index, ..) -> (index, ..) computing `results`.
std::string print_mlir_function(const std::string& name, const std::vector<std::string>& arguments, const std::vector<Ref>& results,
                                Prover& prover);

}  // namespace lego::sym
