// Range-aware simplification of index expressions: the paper's seven rules
// (Table II) and the generalizations Halide's and TVM's simplifiers use,
// each applied only when the prover shows its side condition:
//   (d*q + r) // d -> q + r // d      r // d -> 0 if 0 <= r < d
//   (d*q + r) %  d -> r % d           r %  d -> r if 0 <= r < d
//   (x // a) // b  -> x // (a*b)      (x % (a*k)) % a -> x % a
//   a*(x // a) + x % a -> x           a*((x // a) % b) + x % a -> x % (a*b)
//   min/max/select/compare with a proved order -> the known side
// Expanded and unexpanded forms are both tried; the cheaper one is kept.
// The rules, their names and examples are the table in simplify_rules.hpp.
#pragma once

#include <functional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sym/monomial.hpp"
#include "sym/prover.hpp"
#include "sym/simplify_rules.hpp"
#include "sym/sym.hpp"

namespace lego::sym {

class Simplifier {
 public:
  Simplifier(Pool& pool, Facts facts) : pool_(pool), prover_(pool, std::move(facts)) {}

  Ref simplify(Ref e);
  Prover& prover() { return prover_; }

  // How often each rule has fired (a node simplified once is remembered,
  // so a repeated subexpression counts once).
  const RuleHits& hits() const { return hits_; }
  // Every rewrite from now on is appended to `steps`, outer rewrites before
  // the ones they caused; null stops recording.
  void record(std::vector<RuleStep>* steps) { steps_ = steps; }

 private:
  Ref rewrite(Ref e);
  Ref simplify_sum(Ref e);
  Ref simplify_div(Ref a, Ref d);
  Ref divide(Ref a, Ref d);
  Ref simplify_mod(Ref a, Ref d);
  Ref recombine(Ref sum);

  // Tries `rule` (a method returning null when it does not apply) on a
  // node `before`; counts and records it when it fires.
  template <class Apply>
  Ref attempt(Rule rule, Ref before, Apply apply);

  // A rule for a // d or a % d with d > 0 a monomial: null when it does not apply.
  using MonomialRule = std::pair<Rule, Ref (Simplifier::*)(Ref, Ref, const Monomial&)>;
  // The first of `rules` (in table order) that applies; `kept` when none does.
  Ref first_rule(std::span<const MonomialRule> rules, Ref kept, Ref a, Ref d, const Monomial& dm);

  // The rules (simplify_rules.hpp); each returns null when it does not apply.
  // Division a // d with d > 0, d a monomial:
  Ref div_multiples_out(Ref a, Ref d, const Monomial& dm);
  Ref div_in_range(Ref a, Ref d, const Monomial& dm);
  Ref div_constant_on_interval(Ref a, Ref d, const Monomial& dm);
  Ref div_below_common_factor(Ref a, Ref d, const Monomial& dm);
  Ref div_of_div(Ref a, Ref d, const Monomial& dm);
  // d > 0 a sum:
  Ref div_by_polynomial(Ref a, Ref d);
  Ref mod_by_polynomial(Ref a, Ref d);
  // Modulo a % d with d > 0, d a monomial, a expanded:
  Ref mod_multiples_out(Ref a, Ref d, const Monomial& dm);
  Ref mod_in_range(Ref a, Ref d, const Monomial& dm);
  Ref mod_below_common_factor(Ref a, Ref d, const Monomial& dm);
  Ref mod_of_mod(Ref a, Ref d, const Monomial& dm);

  Pool& pool_;
  Prover prover_;
  std::unordered_map<Ref, Ref> memo_;
  RuleHits hits_{};
  std::vector<RuleStep>* steps_ = nullptr;
};

// Arithmetic operations the printed expression performs (the paper's cost
// model): + - * // % min max, comparisons, logic, bit ops, select, isqrt.
// Nodes for which is_atom holds count as free (printed temporaries).
int op_count(Ref e, const std::function<bool(Ref)>& is_atom = {});

}  // namespace lego::sym
