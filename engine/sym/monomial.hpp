// Expressions as coef * (product of factors), and exact polynomial division
// by such a monomial: what the div/mod rules and the prover need to see
// multiples of a (possibly symbolic) divisor.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sym/sym.hpp"

namespace lego::sym {

struct Monomial {
  std::int64_t coef = 1;
  std::vector<Ref> factors;  // sorted, as in a Product
};

// False when e is not a single monomial (a sum of several terms, say).
inline bool as_monomial(Ref e, Monomial& m) {
  m = {};
  if (e->kind == Kind::Const) {
    m.coef = e->value;
    return true;
  }
  if (e->kind == Kind::Sum) {
    if (e->value != 0 || e->terms.size() != 1) return false;
    m.coef = e->terms[0].coef;
    e = e->terms[0].term;
  }
  if (e->kind == Kind::Product)
    m.factors = e->args;
  else
    m.factors = {e};
  return true;
}

// coef*term / d when d divides it exactly as a polynomial, else nullptr.
inline Ref exact_quotient(Pool& pool, std::int64_t coef, Ref term, const Monomial& d) {
  if (d.coef == 0 || coef % d.coef != 0) return nullptr;
  Monomial t;
  as_monomial(term, t);
  std::vector<Ref> rest = t.factors;
  for (Ref f : d.factors) {
    auto it = std::find(rest.begin(), rest.end(), f);
    if (it == rest.end()) return nullptr;
    rest.erase(it);
  }
  Ref q = pool.constant(coef / d.coef * t.coef);
  for (Ref f : rest) q = pool.mul(q, f);
  return q;
}

}  // namespace lego::sym
