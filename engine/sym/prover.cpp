#include "sym/prover.hpp"

#include <algorithm>
#include <climits>

#include "sym/monomial.hpp"

namespace lego::sym {

namespace {

using I = Interval;

bool inf(std::int64_t v) { return v == I::kNegInf || v == I::kPosInf; }

std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  if (a == I::kNegInf || b == I::kNegInf) return (a == I::kPosInf || b == I::kPosInf) ? I::kNegInf : I::kNegInf;
  if (a == I::kPosInf || b == I::kPosInf) return I::kPosInf;
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? I::kPosInf : I::kNegInf;
  return r;
}

std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  const bool neg = (a < 0) != (b < 0);
  if (inf(a) || inf(b)) return neg ? I::kNegInf : I::kPosInf;
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return neg ? I::kNegInf : I::kPosInf;
  return r;
}

I add(I a, I b) {
  // -inf + +inf is "anything": widen to the full range.
  I r;
  r.lo = (a.lo == I::kNegInf || b.lo == I::kNegInf) ? I::kNegInf : sat_add(a.lo, b.lo);
  r.hi = (a.hi == I::kPosInf || b.hi == I::kPosInf) ? I::kPosInf : sat_add(a.hi, b.hi);
  return r;
}

I scale(std::int64_t c, I a) {
  if (c >= 0) return {sat_mul(c, a.lo), sat_mul(c, a.hi)};
  return {sat_mul(c, a.hi), sat_mul(c, a.lo)};
}

I mul(I a, I b) {
  const std::int64_t c[4] = {sat_mul(a.lo, b.lo), sat_mul(a.lo, b.hi), sat_mul(a.hi, b.lo), sat_mul(a.hi, b.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

std::int64_t div_floor_sat(std::int64_t a, std::int64_t b) {  // b > 0
  if (inf(a)) return a;
  if (b == I::kPosInf) return a >= 0 ? 0 : -1;
  return floor_div(a, b);
}

}  // namespace

Interval Prover::interval(Ref e) {
  if (auto it = intervals_.find(e); it != intervals_.end()) return it->second;
  intervals_[e] = I{};  // provisional: a cycle through the facts reads "unbounded"
  I r;
  switch (e->kind) {
    case Kind::Const:
      r = {e->value, e->value};
      break;
    case Kind::Var: {
      auto it = facts_.ranges.find(e->name);
      if (it != facts_.ranges.end()) {
        if (it->second.lo) r.lo = interval(it->second.lo).lo;
        if (it->second.hi) r.hi = interval(it->second.hi).hi;
      }
      break;
    }
    case Kind::Sum: {
      r = {e->value, e->value};
      for (const auto& t : e->terms) r = add(r, scale(t.coef, interval(t.term)));
      break;
    }
    case Kind::Product: {
      r = interval(e->args[0]);
      for (std::size_t k = 1; k < e->args.size(); ++k) r = mul(r, interval(e->args[k]));
      // x*(x+1) >= 0 for every integer x (triangular numbers, anti-diagonals).
      if (e->args.size() == 2) {
        Ref diff = pool_.sub(e->args[1], e->args[0]);
        if (is_const(diff) && (diff->value == 1 || diff->value == -1)) r.lo = std::max<std::int64_t>(r.lo, 0);
      }
      break;
    }
    case Kind::FloorDiv: {
      const I a = interval(e->args[0]);
      I b = interval(e->args[1]);
      // Contradictory facts can give an empty divisor range (lo > hi); any bound is then vacuously sound.
      b.hi = std::max(b.hi, b.lo);
      if (b.lo > 0) {
        const std::int64_t c[4] = {div_floor_sat(a.lo, b.lo), div_floor_sat(a.lo, b.hi), div_floor_sat(a.hi, b.lo),
                                   div_floor_sat(a.hi, b.hi)};
        r = {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      break;
    }
    case Kind::Mod: {
      const I a = interval(e->args[0]), b = interval(e->args[1]);
      if (b.lo > 0) {
        r = {0, b.hi == I::kPosInf ? I::kPosInf : b.hi - 1};
        if (a.lo >= 0) r.hi = std::min(r.hi, a.hi);
      }
      break;
    }
    case Kind::Min: {
      const I a = interval(e->args[0]), b = interval(e->args[1]);
      r = {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
      break;
    }
    case Kind::Max: {
      const I a = interval(e->args[0]), b = interval(e->args[1]);
      r = {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
      break;
    }
    case Kind::Select: {
      const I a = interval(e->args[1]), b = interval(e->args[2]);
      r = {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
      break;
    }
    case Kind::Lt:
    case Kind::Le:
    case Kind::Eq:
    case Kind::Ne:
    case Kind::And:
    case Kind::Or:
    case Kind::Not:  // is_boolean(e)
      r = {0, 1};
      break;
    case Kind::Isqrt: {
      const I a = interval(e->args[0]);
      if (a.lo >= 0) r = {isqrt(a.lo), a.hi == I::kPosInf ? I::kPosInf : isqrt(a.hi)};
      break;
    }
    case Kind::BitAnd:
    case Kind::BitOr:
    case Kind::BitXor: {
      const I a = interval(e->args[0]), b = interval(e->args[1]);
      if (a.lo >= 0 && b.lo >= 0) {
        if (e->kind == Kind::BitAnd) {
          r = {0, std::min(a.hi, b.hi)};
        } else {
          const std::int64_t m = std::max(a.hi, b.hi);
          if (m == I::kPosInf || m >= (std::int64_t{1} << 61)) {
            r = {0, I::kPosInf};
          } else {
            std::int64_t p = 1;
            while (p <= m) p <<= 1;
            r = {0, p - 1};
          }
        }
      }
      break;
    }
    case Kind::Shr: {
      const I a = interval(e->args[0]), b = interval(e->args[1]);
      if (a.lo >= 0 && b.lo >= 0 && b.hi < 64) r = {a.lo >> b.hi, a.hi == I::kPosInf ? I::kPosInf : a.hi >> b.lo};
      break;
    }
    case Kind::Shl: {
      const I a = interval(e->args[0]), b = interval(e->args[1]);
      if (a.lo >= 0 && b.lo >= 0 && b.hi < 62) r = {a.lo << b.lo, sat_mul(a.hi, b.hi == 0 ? 1 : (std::int64_t{1} << b.hi))};
      break;
    }
  }
  if (facts_.sizes.count(e) && !is_const(e)) r.lo = std::max<std::int64_t>(r.lo, 1);  // a constant is what it is
  intervals_[e] = r;
  return r;
}

Ref Prover::expand(Ref e) {
  switch (e->kind) {
    case Kind::Sum: {
      std::vector<Term> terms;
      for (const auto& t : e->terms) terms.push_back({t.coef, expand(t.term)});
      return pool_.sum(e->value, terms);
    }
    case Kind::Product: {
      // Distribute factor by factor.
      Ref acc = expand(e->args[0]);
      for (std::size_t k = 1; k < e->args.size(); ++k) {
        Ref f = expand(e->args[k]);
        auto as_terms = [&](Ref x, std::int64_t& c0) {
          std::vector<Term> t;
          if (x->kind == Kind::Sum) {
            c0 = x->value;
            t = x->terms;
          } else if (x->kind == Kind::Const) {
            c0 = x->value;
          } else {
            c0 = 0;
            t.push_back({1, x});
          }
          return t;
        };
        std::int64_t ca, cb;
        const auto ta = as_terms(acc, ca), tb = as_terms(f, cb);
        std::vector<Term> out;
        for (const auto& x : ta) {
          for (const auto& y : tb) out.push_back({x.coef * y.coef, pool_.mul(x.term, y.term)});
          if (cb) out.push_back({x.coef * cb, x.term});
        }
        if (ca)
          for (const auto& y : tb) out.push_back({ca * y.coef, y.term});
        acc = pool_.sum(ca * cb, out);
      }
      return acc;
    }
    default:
      return e;
  }
}

Ref Prover::bound(Ref e, bool up, int depth) {
  if (depth > 8) return nullptr;
  if (facts_.sizes.count(e) && !is_const(e)) return e;
  switch (e->kind) {
    case Kind::Const:
      return e;
    case Kind::Var: {
      auto p = facts_.is_parameter.find(e->name);
      if (p != facts_.is_parameter.end() && p->second) return e;
      auto it = facts_.ranges.find(e->name);
      if (it == facts_.ranges.end()) return nullptr;
      Ref b = up ? it->second.hi : it->second.lo;
      return b ? bound(b, up, depth + 1) : nullptr;
    }
    case Kind::Sum: {
      std::vector<Term> terms;
      for (const auto& t : e->terms) {
        Ref b = bound(t.term, (t.coef > 0) == up, depth + 1);
        if (!b) return nullptr;
        terms.push_back({t.coef, b});
      }
      return expand(pool_.sum(e->value, terms));
    }
    case Kind::Product: {
      for (Ref f : e->args)
        if (interval(f).lo < 0) return nullptr;
      Ref acc = pool_.constant(1);
      for (Ref f : e->args) {
        Ref b = bound(f, up, depth + 1);
        if (!b) return nullptr;
        acc = expand(pool_.mul(acc, b));
      }
      return acc;
    }
    case Kind::Mod: {
      if (interval(e->args[1]).lo <= 0) return nullptr;
      if (!up) return pool_.constant(0);
      Ref d = bound(e->args[1], true, depth + 1);
      return d ? pool_.add_constant(d, -1) : nullptr;
    }
    case Kind::FloorDiv: {
      // Monotone in the numerator for a positive divisor d: bound(x) // d,
      // reduced by exact division: (GM*n - 1) // GM = n - 1.
      Ref d = e->args[1];
      Monomial dm;
      if (interval(d).lo <= 0 || !as_monomial(d, dm) || dm.coef <= 0) return nullptr;
      Ref a = bound(e->args[0], up, depth + 1);
      if (!a) return nullptr;
      if (is_const(d)) return pool_.floordiv(a, d);
      std::vector<Term> q;
      std::int64_t r = a->kind == Kind::Const ? a->value : 0;
      if (a->kind == Kind::Sum) {
        r = a->value;
        for (const auto& t : a->terms) {
          Ref quotient = exact_quotient(pool_, t.coef, t.term, dm);
          if (!quotient) return nullptr;
          q.push_back({1, quotient});
        }
      } else if (a->kind != Kind::Const) {
        Ref quotient = exact_quotient(pool_, 1, a, dm);
        if (!quotient) return nullptr;
        q.push_back({1, quotient});
      }
      // r // d for a constant r: 0 when 0 <= r < d, -1 when -d <= r < 0.
      const std::int64_t dlo = interval(d).lo;
      if (r >= 0 && r < dlo) return pool_.sum(0, q);
      if (r < 0 && -r <= dlo) return pool_.sum(-1, q);
      return nullptr;
    }
    case Kind::Min:
    case Kind::Max: {
      Ref a = bound(e->args[0], up, depth + 1), b = bound(e->args[1], up, depth + 1);
      if (!a || !b) return nullptr;
      return e->kind == Kind::Min ? pool_.min(a, b) : pool_.max(a, b);
    }
    default: {
      const Interval i = interval(e);
      const std::int64_t v = up ? i.hi : i.lo;
      return inf(v) ? nullptr : pool_.constant(v);
    }
  }
}

Ref Prover::lower(Ref e) { return bound(e, false, 0); }
Ref Prover::upper(Ref e) { return bound(e, true, 0); }

namespace {

std::vector<Ref> factors_of(Ref t) {
  if (t->kind == Kind::Product) return t->args;
  return {t};
}

}  // namespace

// Sum of terms sharing a factor f >= 0: e = f * q, and q >= 0 suffices
// (GM*q - GM = GM*(q - 1) >= 0 when q >= 1).
Ref Prover::divide_common_factor(Ref e) {
  if (e->kind != Kind::Sum || e->value != 0) return nullptr;
  for (Ref f : factors_of(e->terms[0].term)) {
    if (interval(f).lo < 0) continue;
    std::vector<Term> quotient;
    for (const auto& t : e->terms) {
      auto fs = factors_of(t.term);
      auto it = std::find(fs.begin(), fs.end(), f);
      if (it == fs.end()) break;
      fs.erase(it);
      Ref q = pool_.constant(1);
      for (Ref g : fs) q = pool_.mul(q, g);
      quotient.push_back({t.coef, q});
    }
    if (quotient.size() == e->terms.size()) return pool_.sum(0, quotient);
  }
  return nullptr;
}

bool Prover::nonneg(Ref e, int depth) {
  if (interval(e).lo >= 0) return true;
  Ref l = lower(e);
  if (l && l != e && interval(l).lo >= 0) return true;
  if (depth >= 3) return false;
  for (Ref candidate : {e, l}) {
    if (!candidate) continue;
    if (Ref q = divide_common_factor(candidate); q && nonneg(q, depth + 1)) return true;
  }
  return depth == 0 && fallback_ && fallback_(e, facts_);
}

}  // namespace lego::sym
