// Range-aware simplification of index expressions: the paper's seven rules
// (Table II) and the generalizations Halide's and TVM's simplifiers use,
// each applied only when the prover shows its side condition:
//   (d*q + r) // d -> q + r // d      r // d -> 0 if 0 <= r < d
//   (d*q + r) %  d -> r % d           r %  d -> r if 0 <= r < d
//   (x // a) // b  -> x // (a*b)      (x % (a*k)) % a -> x % a
//   a*(x // a) + x % a -> x           a*((x // a) % b) + x % a -> x % (a*b)
//   min/max/select/compare with a proved order -> the known side
// Expanded and unexpanded forms are both tried; the cheaper one is kept.
#pragma once

#include <functional>
#include <unordered_map>

#include "expr/prover.hpp"
#include "expr/sym.hpp"

namespace lego::sym {

class Simplifier {
 public:
  Simplifier(Pool& pool, Facts facts) : pool_(pool), prover_(pool, std::move(facts)) {}

  Ref simplify(Ref e);
  Prover& prover() { return prover_; }

 private:
  Ref rewrite(Ref e);
  Ref simplify_sum(Ref e);
  Ref simplify_div(Ref a, Ref d);
  Ref divide(Ref a, Ref d);
  Ref divide_by_polynomial(Ref a, Ref d);
  Ref simplify_mod(Ref a, Ref d);
  Ref recombine(Ref sum);

  Pool& pool_;
  Prover prover_;
  std::unordered_map<Ref, Ref> memo_;
};

// Arithmetic operations the printed expression performs (the paper's cost
// model): + - * // % min max, comparisons, logic, bit ops, select, isqrt.
// Nodes for which is_atom holds count as free (printed temporaries).
int op_count(Ref e, const std::function<bool(Ref)>& is_atom = {});

}  // namespace lego::sym
