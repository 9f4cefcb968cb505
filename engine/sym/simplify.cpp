#include "sym/simplify.hpp"

#include <algorithm>
#include <numeric>
#include <set>

namespace lego::sym {

namespace {

std::vector<Term> terms_of(Ref e, std::int64_t& c0) {
  if (e->kind == Kind::Sum) {
    c0 = e->value;
    return e->terms;
  }
  if (e->kind == Kind::Const) {
    c0 = e->value;
    return {};
  }
  c0 = 0;
  return {{1, e}};
}

// a = g*high + low for a constant g > 1 that divides d and every
// coefficient of `high`, with 0 <= low < g proved: the low part cannot carry
// into a quotient by a multiple of g. It is how a brick's offset inside its
// plane (km in 256*jm + km) stops blocking (256*jm + km) // 2048 = jm // 8.
struct Split {
  std::int64_t g = 0;
  Ref high = nullptr, low = nullptr;
};

template <typename Pool, typename Prover>
Split split_below(Pool& pool, Prover& prover, Ref a, std::int64_t d) {
  std::int64_t c0;
  const auto terms = terms_of(a, c0);
  std::set<std::int64_t, std::greater<>> divisors;
  for (const auto& t : terms) {
    const std::int64_t g = std::gcd(t.coef, d);
    if (g > 1 && g < d) divisors.insert(g);
  }
  for (const std::int64_t g : divisors) {
    std::vector<Term> high, low;
    for (const auto& t : terms) (t.coef % g == 0 ? high : low).push_back(t.coef % g == 0 ? Term{t.coef / g, t.term} : t);
    if (high.empty() || low.empty()) continue;
    Ref r = pool.sum(floor_mod(c0, g), low);
    if (!prover.nonneg(r) || !prover.less_than(r, pool.constant(g))) continue;
    return {g, pool.sum(floor_div(c0, g), high), r};
  }
  return {};
}

}  // namespace

int op_count(Ref e, const std::function<bool(Ref)>& is_atom) {
  if (is_atom && is_atom(e)) return 0;
  switch (e->kind) {
    case Kind::Const:
    case Kind::Var:
      return 0;
    case Kind::Sum: {
      int n = static_cast<int>(e->terms.size()) - 1 + (e->value != 0);
      for (std::size_t k = 0; k < e->terms.size(); ++k) {
        const std::int64_t c = e->terms[k].coef;
        // A negative coefficient becomes a subtraction, except on the first term.
        if (c != 1 && c != -1) ++n;
        if (c == -1 && k == 0) ++n;
        n += op_count(e->terms[k].term, is_atom);
      }
      return n;
    }
    case Kind::Product: {
      int n = static_cast<int>(e->args.size()) - 1;
      for (Ref a : e->args) n += op_count(a, is_atom);
      return n;
    }
    default: {
      int n = 1;
      for (Ref a : e->args) n += op_count(a, is_atom);
      return n;
    }
  }
}

template <class Apply>
Ref Simplifier::attempt(Rule rule, Ref before, Apply apply) {
  const std::size_t at = steps_ ? steps_->size() : 0;
  Ref after = apply();
  if (!after) return nullptr;
  ++hits_[static_cast<std::size_t>(rule)];
  // Inserted where the attempt began, so the steps it caused come after it.
  if (steps_) steps_->insert(steps_->begin() + static_cast<std::ptrdiff_t>(at), RuleStep{rule, before, after});
  return after;
}

Ref Simplifier::simplify(Ref e) {
  if (auto it = memo_.find(e); it != memo_.end()) return it->second;
  Ref r = rewrite(e);
  // Try the distributed form too and keep the cheaper (paper, Section IV-A).
  if (r->kind == Kind::Sum || r->kind == Kind::Product) {
    Ref expanded = prover_.expand(r);
    if (expanded != r) {
      Ref alt = rewrite(expanded);
      if (op_count(alt) < op_count(r)) r = alt;
    }
  }
  memo_[e] = r;
  return r;
}

Ref Simplifier::rewrite(Ref e) {
  switch (e->kind) {
    case Kind::Const:
    case Kind::Var:
      return e;
    case Kind::Sum:
      return simplify_sum(e);
    case Kind::Product: {
      Ref acc = pool_.constant(1);
      for (Ref f : e->args) acc = pool_.mul(acc, simplify(f));
      return acc;
    }
    case Kind::FloorDiv:
      return simplify_div(simplify(e->args[0]), simplify(e->args[1]));
    case Kind::Mod:
      return simplify_mod(simplify(e->args[0]), simplify(e->args[1]));
    case Kind::Min:
    case Kind::Max: {
      Ref a = simplify(e->args[0]), b = simplify(e->args[1]);
      const bool is_min = e->kind == Kind::Min;
      Ref kept = is_min ? pool_.min(a, b) : pool_.max(a, b);
      if (Ref r = attempt(Rule::MinMaxOrdered, kept, [&]() -> Ref {
            if (prover_.less_equal(a, b)) return is_min ? a : b;
            if (prover_.less_equal(b, a)) return is_min ? b : a;
            return nullptr;
          }))
        return r;
      return kept;
    }
    case Kind::Lt:
    case Kind::Le:
    case Kind::Eq:
    case Kind::Ne: {
      Ref a = simplify(e->args[0]), b = simplify(e->args[1]);
      Ref kept = pool_.compare(e->kind, a, b);
      if (Ref r = attempt(Rule::CompareDecided, kept, [&]() -> Ref {
            const bool lt = e->kind == Kind::Lt, le = e->kind == Kind::Le;
            if (lt || le) {
              if (lt ? prover_.less_than(a, b) : prover_.less_equal(a, b)) return pool_.constant(1);
              if (lt ? prover_.less_equal(b, a) : prover_.less_than(b, a)) return pool_.constant(0);
              return nullptr;
            }
            if (prover_.less_than(a, b) || prover_.less_than(b, a)) return pool_.constant(e->kind == Kind::Ne);
            return nullptr;
          }))
        return r;
      return kept;
    }
    case Kind::Select: {
      Ref c = simplify(e->args[0]);
      return pool_.select(c, simplify(e->args[1]), simplify(e->args[2]));
    }
    case Kind::And:
    case Kind::Or:
      return pool_.logic(e->kind, simplify(e->args[0]), simplify(e->args[1]));
    case Kind::Not:
      return pool_.logical_not(simplify(e->args[0]));
    case Kind::Isqrt:
      return pool_.isqrt(simplify(e->args[0]));
    default:
      return pool_.bits(e->kind, simplify(e->args[0]), simplify(e->args[1]));
  }
}

Ref Simplifier::simplify_sum(Ref e) {
  std::vector<Term> terms;
  for (const auto& t : e->terms) terms.push_back({t.coef, simplify(t.term)});
  return recombine(pool_.sum(e->value, terms));
}

// recombine.div_mod and recombine.nested_mod, with any common coefficient,
// repeated until nothing pairs up.
Ref Simplifier::recombine(Ref s) {
  for (bool changed = true; changed && s->kind == Kind::Sum;) {
    changed = false;
    const auto& terms = s->terms;
    for (std::size_t m = 0; m < terms.size() && !changed; ++m) {
      Ref md = terms[m].term;
      if (md->kind != Kind::Mod) continue;
      Ref x = md->args[0], a = md->args[1];
      Monomial am;
      if (!as_monomial(a, am) || !prover_.positive(a)) continue;
      for (std::size_t k = 0; k < terms.size() && !changed; ++k) {
        if (k == m) continue;
        // terms[k] must be (c*a) * y with y = x//a or (x//a)%b.
        Ref y = exact_quotient(pool_, terms[k].coef, terms[k].term, am);
        if (!y) continue;
        Monomial ym;
        as_monomial(y, ym);
        if (ym.factors.size() != 1 || ym.coef != terms[m].coef) continue;
        Ref f = ym.factors[0];
        auto pair_up = [&](Ref replacement) {
          std::vector<Term> rest;
          for (std::size_t t = 0; t < terms.size(); ++t)
            if (t != m && t != k) rest.push_back(terms[t]);
          rest.push_back({terms[m].coef, replacement});
          return pool_.sum(s->value, rest);
        };
        Ref next = nullptr;
        if (f->kind == Kind::FloorDiv && f->args[0] == x && f->args[1] == a)
          next = attempt(Rule::RecombineDivMod, s, [&] { return pair_up(x); });
        else if (f->kind == Kind::Mod && f->args[0]->kind == Kind::FloorDiv && f->args[0]->args[0] == x && f->args[0]->args[1] == a &&
                 prover_.positive(f->args[1]))
          next = attempt(Rule::RecombineNestedMod, s, [&] { return pair_up(simplify_mod(x, pool_.mul(a, f->args[1]))); });
        if (!next) continue;
        s = next;
        changed = true;
      }
    }
  }
  return s;
}

Ref Simplifier::simplify_div(Ref a, Ref d) {
  if (is_const(d) && d->value == 0) throw LegoError("a division by zero: the divisor simplifies to 0");
  // Multiples of d show in the distributed form, but the factored one can be
  // cheaper ((i+j+1)*(i+j) // 2): try both, keep the cheaper.
  Ref expanded = prover_.expand(a);
  Ref best = divide(expanded, d);
  if (expanded != a) {
    Ref factored = divide(a, d);
    if (op_count(factored) < op_count(best)) best = factored;
  }
  return best;
}

Ref Simplifier::first_rule(std::span<const MonomialRule> rules, Ref kept, Ref a, Ref d, const Monomial& dm) {
  // Not a structured binding: clang 15 cannot capture one in the lambda.
  for (const auto& entry : rules) {
    const auto apply = entry.second;
    if (Ref r = attempt(entry.first, kept, [&] { return (this->*apply)(a, d, dm); })) return r;
  }
  return kept;
}

// The division rules in table order; the first that applies wins.
Ref Simplifier::divide(Ref a, Ref d) {
  Ref kept = pool_.floordiv(a, d);
  if (!prover_.positive(d)) return kept;
  Monomial dm;
  if (!as_monomial(d, dm)) {
    Ref r = attempt(Rule::DivByPolynomial, kept, [&] { return div_by_polynomial(a, d); });
    return r ? r : kept;
  }
  static constexpr MonomialRule rules[] = {
      {Rule::DivMultiplesOut, &Simplifier::div_multiples_out},
      {Rule::DivInRange, &Simplifier::div_in_range},
      {Rule::DivConstantOnInterval, &Simplifier::div_constant_on_interval},
      {Rule::DivBelowCommonFactor, &Simplifier::div_below_common_factor},
      {Rule::DivOfDiv, &Simplifier::div_of_div},
  };
  return first_rule(rules, kept, a, d, dm);
}

// (d*q + r) // d -> q + r // d: every multiple of d moves out.
Ref Simplifier::div_multiples_out(Ref a, Ref d, const Monomial& dm) {
  std::int64_t c0;
  const auto terms = terms_of(a, c0);
  std::vector<Term> q, r;
  for (const auto& t : terms) {
    if (Ref quotient = exact_quotient(pool_, t.coef, t.term, dm))
      q.push_back({1, quotient});
    else
      r.push_back(t);
  }
  std::int64_t r0 = c0;
  if (is_const(d) && floor_div(c0, d->value) != 0) {
    q.push_back({floor_div(c0, d->value), pool_.constant(1)});
    r0 = floor_mod(c0, d->value);
  }
  if (q.empty()) return nullptr;
  return simplify(pool_.add(pool_.sum(0, q), divide(pool_.sum(r0, r), d)));
}

// r // d -> 0 for 0 <= r < d.
Ref Simplifier::div_in_range(Ref a, Ref d, const Monomial&) {
  return prover_.nonneg(a) && prover_.less_than(a, d) ? pool_.constant(0) : nullptr;
}

// r // c -> k for r in [k*c, (k+1)*c).
Ref Simplifier::div_constant_on_interval(Ref a, Ref d, const Monomial&) {
  if (!is_const(d)) return nullptr;
  const Interval i = prover_.interval(a);
  if (i.lo == Interval::kNegInf || i.hi == Interval::kPosInf || floor_div(i.lo, d->value) != floor_div(i.hi, d->value)) return nullptr;
  return pool_.constant(floor_div(i.lo, d->value));
}

// (g*y + r) // (g*m) -> y // m for 0 <= r < g.
Ref Simplifier::div_below_common_factor(Ref a, Ref d, const Monomial&) {
  if (!is_const(d)) return nullptr;
  const Split s = split_below(pool_, prover_, a, d->value);
  return s.g ? divide(s.high, pool_.constant(d->value / s.g)) : nullptr;
}

// (x // a) // d -> x // (a*d) for positive a, d.
Ref Simplifier::div_of_div(Ref a, Ref d, const Monomial&) {
  if (a->kind != Kind::FloorDiv || !prover_.positive(a->args[1])) return nullptr;
  return simplify_div(a->args[0], simplify(pool_.mul(a->args[1], d)));
}

// a // d for a sum d (a padded extent such as T + 1): divide a by d's
// leading term as polynomials, a = d*q + r exactly, so a // d = q + r // d;
// kept only when r // d then folds to 0.
Ref Simplifier::div_by_polynomial(Ref a, Ref d) {
  if (d->kind != Kind::Sum || a->kind != Kind::Sum) return nullptr;
  Monomial lead;
  if (!as_monomial(pool_.scale(d->terms[0].coef, d->terms[0].term), lead)) return nullptr;
  std::vector<Term> q;
  Ref r = a;
  for (int guard = 0; guard < 8 && r->kind == Kind::Sum; ++guard) {
    Ref quotient = nullptr;
    for (const auto& t : r->terms)
      if ((quotient = exact_quotient(pool_, t.coef, t.term, lead))) break;
    if (!quotient) break;
    q.push_back({1, quotient});
    r = prover_.expand(pool_.sub(r, pool_.mul(d, quotient)));
  }
  if (q.empty() || !prover_.nonneg(r) || !prover_.less_than(r, d)) return nullptr;
  return simplify(pool_.sum(0, q));
}

// a % d = a - d*(a // d), worth it when the division folds away.
Ref Simplifier::mod_by_polynomial(Ref a, Ref d) {
  Ref q = div_by_polynomial(prover_.expand(a), d);
  return q ? simplify(prover_.expand(pool_.sub(a, pool_.mul(d, q)))) : nullptr;
}

// The modulo rules in table order; the first that applies wins.
Ref Simplifier::simplify_mod(Ref a, Ref d) {
  if (is_const(d) && d->value == 0) throw LegoError("a modulo by zero: the divisor simplifies to 0");
  Ref kept = pool_.mod(a, d);
  if (!prover_.positive(d)) return kept;
  Monomial dm;
  if (!as_monomial(d, dm)) {
    Ref r = attempt(Rule::ModByPolynomial, kept, [&] { return mod_by_polynomial(a, d); });
    return r ? r : kept;
  }
  a = prover_.expand(a);
  kept = pool_.mod(a, d);
  static constexpr MonomialRule rules[] = {
      {Rule::ModMultiplesOut, &Simplifier::mod_multiples_out},
      {Rule::ModInRange, &Simplifier::mod_in_range},
      {Rule::ModBelowCommonFactor, &Simplifier::mod_below_common_factor},
      {Rule::ModOfMod, &Simplifier::mod_of_mod},
  };
  return first_rule(rules, kept, a, d, dm);
}

// (d*q + r) % d -> r % d.
Ref Simplifier::mod_multiples_out(Ref a, Ref d, const Monomial& dm) {
  std::int64_t c0;
  const auto terms = terms_of(a, c0);
  std::vector<Term> r;
  for (const auto& t : terms)
    if (!exact_quotient(pool_, t.coef, t.term, dm)) r.push_back(t);
  Ref rest = pool_.sum(is_const(d) ? floor_mod(c0, d->value) : c0, r);
  return rest == a ? nullptr : simplify_mod(simplify(rest), d);
}

// r % d -> r for 0 <= r < d.
Ref Simplifier::mod_in_range(Ref a, Ref d, const Monomial&) { return prover_.nonneg(a) && prover_.less_than(a, d) ? a : nullptr; }

// (g*y + r) % (g*m) -> g*(y % m) + r for 0 <= r < g.
Ref Simplifier::mod_below_common_factor(Ref a, Ref d, const Monomial&) {
  if (!is_const(d)) return nullptr;
  const Split s = split_below(pool_, prover_, a, d->value);
  if (!s.g) return nullptr;
  return simplify(pool_.add(pool_.scale(s.g, simplify_mod(s.high, pool_.constant(d->value / s.g))), s.low));
}

// (x % (d*k)) % d -> x % d.
Ref Simplifier::mod_of_mod(Ref a, Ref d, const Monomial& dm) {
  if (a->kind != Kind::Mod) return nullptr;
  Monomial outer;
  if (!as_monomial(a->args[1], outer) || !exact_quotient(pool_, outer.coef, a->args[1], dm) || !prover_.positive(a->args[1]))
    return nullptr;
  return simplify_mod(a->args[0], d);
}

}  // namespace lego::sym
