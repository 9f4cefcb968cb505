#include "sym/sym.hpp"

#include <algorithm>
#include <functional>
#include <limits>

namespace lego::sym {

namespace {

std::size_t mix(std::size_t h, std::size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }

std::size_t hash_of(const Node& n) {
  std::size_t h = mix(static_cast<std::size_t>(n.kind), std::hash<std::int64_t>{}(n.value));
  h = mix(h, std::hash<std::string>{}(n.name));
  for (const auto& t : n.terms) h = mix(mix(h, std::hash<std::int64_t>{}(t.coef)), t.term->hash);
  for (Ref a : n.args) h = mix(h, a->hash);
  return h;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw LegoError("integer overflow while simplifying an index expression");
  return r;
}
std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw LegoError("integer overflow while simplifying an index expression");
  return r;
}

}  // namespace

bool less(Ref a, Ref b) {
  if (a == b) return false;
  if (a->kind != b->kind) return a->kind < b->kind;
  switch (a->kind) {
    case Kind::Const:
      return a->value < b->value;
    case Kind::Var:
      return a->name < b->name;
    case Kind::Sum: {
      if (a->terms.size() != b->terms.size()) return a->terms.size() < b->terms.size();
      for (std::size_t k = 0; k < a->terms.size(); ++k) {
        if (a->terms[k].term != b->terms[k].term) return less(a->terms[k].term, b->terms[k].term);
        if (a->terms[k].coef != b->terms[k].coef) return a->terms[k].coef < b->terms[k].coef;
      }
      return a->value < b->value;
    }
    default:
      if (a->args.size() != b->args.size()) return a->args.size() < b->args.size();
      for (std::size_t k = 0; k < a->args.size(); ++k)
        if (a->args[k] != b->args[k]) return less(a->args[k], b->args[k]);
      return false;
  }
}

bool Pool::Equal::operator()(Ref a, Ref b) const {
  return a->kind == b->kind && a->value == b->value && a->name == b->name && a->terms == b->terms && a->args == b->args;
}

Pool::Pool() = default;
Pool::~Pool() = default;

Ref Pool::intern(Node n) {
  n.hash = hash_of(n);
  auto it = table_.find(&n);
  if (it != table_.end()) return *it;
  n.id = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back(std::move(n));
  Ref r = &nodes_.back();
  table_.insert(r);
  return r;
}

Ref Pool::make(Kind k, std::vector<Ref> args) {
  Node n;
  n.kind = k;
  n.args = std::move(args);
  return intern(std::move(n));
}

Ref Pool::constant(std::int64_t v) {
  Node n;
  n.kind = Kind::Const;
  n.value = v;
  return intern(std::move(n));
}

Ref Pool::var(const std::string& name) {
  Node n;
  n.kind = Kind::Var;
  n.name = name;
  return intern(std::move(n));
}

Ref Pool::sum(std::int64_t c0, const std::vector<Term>& input) {
  std::vector<Term> terms;
  std::function<void(std::int64_t, Ref)> push = [&](std::int64_t coef, Ref t) {
    if (coef == 0) return;
    if (t->kind == Kind::Const) {
      c0 = checked_add(c0, checked_mul(coef, t->value));
    } else if (t->kind == Kind::Sum) {
      c0 = checked_add(c0, checked_mul(coef, t->value));
      for (const auto& inner : t->terms) push(checked_mul(coef, inner.coef), inner.term);
    } else {
      terms.push_back({coef, t});
    }
  };
  for (const auto& t : input) push(t.coef, t.term);
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return less(a.term, b.term); });
  std::vector<Term> merged;
  for (const auto& t : terms) {
    if (!merged.empty() && merged.back().term == t.term)
      merged.back().coef = checked_add(merged.back().coef, t.coef);
    else
      merged.push_back(t);
  }
  std::erase_if(merged, [](const Term& t) { return t.coef == 0; });
  if (merged.empty()) return constant(c0);
  if (merged.size() == 1 && merged[0].coef == 1 && c0 == 0) return merged[0].term;
  Node n;
  n.kind = Kind::Sum;
  n.value = c0;
  n.terms = std::move(merged);
  return intern(std::move(n));
}

Ref Pool::add(Ref a, Ref b) { return sum(0, {{1, a}, {1, b}}); }
Ref Pool::sub(Ref a, Ref b) { return sum(0, {{1, a}, {-1, b}}); }
Ref Pool::scale(std::int64_t c, Ref a) { return sum(0, {{c, a}}); }
Ref Pool::add_constant(Ref a, std::int64_t c) { return sum(c, {{1, a}}); }

Ref Pool::mul(Ref a, Ref b) {
  if (is_const(a)) return scale(a->value, b);
  if (is_const(b)) return scale(b->value, a);
  // Pull a single coefficient out: (c*t) * u = c * (t*u).
  auto split = [](Ref e, std::int64_t& coef) -> Ref {
    if (e->kind == Kind::Sum && e->value == 0 && e->terms.size() == 1) {
      coef *= e->terms[0].coef;
      return e->terms[0].term;
    }
    return e;
  };
  std::int64_t coef = 1;
  a = split(a, coef);
  b = split(b, coef);
  std::vector<Ref> factors;
  for (Ref f : {a, b}) {
    if (f->kind == Kind::Product)
      factors.insert(factors.end(), f->args.begin(), f->args.end());
    else
      factors.push_back(f);
  }
  std::sort(factors.begin(), factors.end(), less);
  return scale(coef, make(Kind::Product, std::move(factors)));
}

Ref Pool::floordiv(Ref a, Ref b) {
  if (is_const(b) && b->value != 0) {
    if (is_const(a)) {
      if (!(a->value == std::numeric_limits<std::int64_t>::min() && b->value == -1)) return constant(floor_div(a->value, b->value));
    }
    if (b->value == 1) return a;
  }
  if (is_const(a, 0)) return a;
  return make(Kind::FloorDiv, {a, b});
}

Ref Pool::mod(Ref a, Ref b) {
  if (is_const(b) && b->value != 0) {
    if (is_const(a)) return constant(b->value == -1 ? 0 : floor_mod(a->value, b->value));
    if (b->value == 1 || b->value == -1) return constant(0);
  }
  if (is_const(a, 0) || a == b) return constant(0);
  return make(Kind::Mod, {a, b});
}

Ref Pool::min(Ref a, Ref b) {
  if (a == b) return a;
  if (is_const(a) && is_const(b)) return constant(std::min(a->value, b->value));
  if (less(b, a)) std::swap(a, b);
  return make(Kind::Min, {a, b});
}

Ref Pool::max(Ref a, Ref b) {
  if (a == b) return a;
  if (is_const(a) && is_const(b)) return constant(std::max(a->value, b->value));
  if (less(b, a)) std::swap(a, b);
  return make(Kind::Max, {a, b});
}

Ref Pool::select(Ref c, Ref a, Ref b) {
  if (is_const(c)) return c->value ? a : b;
  if (a == b) return a;
  return make(Kind::Select, {c, a, b});
}

Ref Pool::compare(Kind k, Ref a, Ref b) {
  if (is_const(a) && is_const(b)) {
    const std::int64_t x = a->value, y = b->value;
    return constant(k == Kind::Lt ? x < y : k == Kind::Le ? x <= y : k == Kind::Eq ? x == y : x != y);
  }
  if (a == b) return constant(k == Kind::Le || k == Kind::Eq);
  return make(k, {a, b});
}

Ref Pool::logic(Kind k, Ref a, Ref b) {
  if (is_const(a)) return (k == Kind::And) == (a->value != 0) ? (is_const(b) ? constant(b->value != 0) : b) : constant(a->value != 0);
  if (is_const(b)) return (k == Kind::And) == (b->value != 0) ? a : constant(b->value != 0);
  return make(k, {a, b});
}

Ref Pool::logical_not(Ref a) {
  if (is_const(a)) return constant(a->value == 0);
  return make(Kind::Not, {a});
}

Ref Pool::isqrt(Ref a) {
  if (is_const(a) && a->value >= 0) return constant(lego::isqrt(a->value));
  return make(Kind::Isqrt, {a});
}

Ref Pool::bits(Kind k, Ref a, Ref b) {
  if (is_const(a) && is_const(b)) {
    const std::int64_t x = a->value, y = b->value;
    switch (k) {
      case Kind::BitAnd:
        return constant(x & y);
      case Kind::BitOr:
        return constant(x | y);
      case Kind::BitXor:
        return constant(x ^ y);
      case Kind::Shl:
        if (y >= 0 && y <= 62 && x >= 0 && x <= (std::numeric_limits<std::int64_t>::max() >> y)) return constant(x << y);
        break;
      case Kind::Shr:
        if (y >= 0 && y <= 63) return constant(x >> y);
        break;
      default:
        break;
    }
  }
  if ((k == Kind::Shl || k == Kind::Shr) && is_const(b, 0)) return a;
  if (k == Kind::BitXor && is_const(b, 0)) return a;
  if (k == Kind::BitXor && is_const(a, 0)) return b;
  return make(k, {a, b});
}

Ref Pool::rebuild(Ref e, const std::vector<Ref>& a) {
  switch (e->kind) {
    case Kind::Const:
    case Kind::Var:
      return e;
    case Kind::Sum: {
      std::vector<Term> terms;
      for (std::size_t k = 0; k < e->terms.size(); ++k) terms.push_back({e->terms[k].coef, a[k]});
      return sum(e->value, terms);
    }
    case Kind::Product: {
      Ref acc = constant(1);
      for (Ref f : a) acc = mul(acc, f);
      return acc;
    }
    case Kind::FloorDiv:
      return floordiv(a[0], a[1]);
    case Kind::Mod:
      return mod(a[0], a[1]);
    case Kind::Min:
      return min(a[0], a[1]);
    case Kind::Max:
      return max(a[0], a[1]);
    case Kind::Select:
      return select(a[0], a[1], a[2]);
    case Kind::Lt:
    case Kind::Le:
    case Kind::Eq:
    case Kind::Ne:
      return compare(e->kind, a[0], a[1]);
    case Kind::And:
    case Kind::Or:
      return logic(e->kind, a[0], a[1]);
    case Kind::Not:
      return logical_not(a[0]);
    case Kind::Isqrt:
      return isqrt(a[0]);
    default:
      return bits(e->kind, a[0], a[1]);
  }
}

Ref Pool::from_expr(const Expr& e, const std::map<std::string, Ref, std::less<>>& subst) {
  auto arg = [&](std::size_t k) { return from_expr(e->args[k], subst); };
  switch (e->op) {
    case Op::Const:
      return constant(e->value);
    case Op::Sym: {
      auto it = subst.find(e->name);
      return it != subst.end() ? it->second : var(e->name);
    }
    case Op::Add:
      return add(arg(0), arg(1));
    case Op::Sub:
      return sub(arg(0), arg(1));
    case Op::Mul:
      return mul(arg(0), arg(1));
    case Op::FloorDiv:
      return floordiv(arg(0), arg(1));
    case Op::Mod:
      return mod(arg(0), arg(1));
    case Op::Min:
      return min(arg(0), arg(1));
    case Op::Max:
      return max(arg(0), arg(1));
    case Op::Neg:
      return neg(arg(0));
    case Op::BitNot:
      return sub(constant(-1), arg(0));  // ~x == -1 - x
    case Op::Not:
      return logical_not(arg(0));
    case Op::Lt:
      return compare(Kind::Lt, arg(0), arg(1));
    case Op::Le:
      return compare(Kind::Le, arg(0), arg(1));
    case Op::Gt:
      return compare(Kind::Lt, arg(1), arg(0));
    case Op::Ge:
      return compare(Kind::Le, arg(1), arg(0));
    case Op::Eq:
      return compare(Kind::Eq, arg(0), arg(1));
    case Op::Ne:
      return compare(Kind::Ne, arg(0), arg(1));
    case Op::And:
      return logic(Kind::And, arg(0), arg(1));
    case Op::Or:
      return logic(Kind::Or, arg(0), arg(1));
    case Op::BitAnd:
      return bits(Kind::BitAnd, arg(0), arg(1));
    case Op::BitOr:
      return bits(Kind::BitOr, arg(0), arg(1));
    case Op::BitXor:
      return bits(Kind::BitXor, arg(0), arg(1));
    case Op::Shl:
      return bits(Kind::Shl, arg(0), arg(1));
    case Op::Shr:
      return bits(Kind::Shr, arg(0), arg(1));
    case Op::Select:
      return select(arg(0), arg(1), arg(2));
    case Op::Isqrt:
      return isqrt(arg(0));
  }
  throw LegoError(e->span, "unsupported operator in an index expression");
}

namespace {

Op op_of(Kind k) {
  switch (k) {
    case Kind::FloorDiv:
      return Op::FloorDiv;
    case Kind::Mod:
      return Op::Mod;
    case Kind::Min:
      return Op::Min;
    case Kind::Max:
      return Op::Max;
    case Kind::Lt:
      return Op::Lt;
    case Kind::Le:
      return Op::Le;
    case Kind::Eq:
      return Op::Eq;
    case Kind::Ne:
      return Op::Ne;
    case Kind::And:
      return Op::And;
    case Kind::Or:
      return Op::Or;
    case Kind::Not:
      return Op::Not;
    case Kind::Isqrt:
      return Op::Isqrt;
    case Kind::BitAnd:
      return Op::BitAnd;
    case Kind::BitOr:
      return Op::BitOr;
    case Kind::BitXor:
      return Op::BitXor;
    case Kind::Shl:
      return Op::Shl;
    case Kind::Shr:
      return Op::Shr;
    case Kind::Select:
      return Op::Select;
    default:
      return Op::Const;
  }
}

}  // namespace

// Back to the parsed-expression tree: shares its checked evaluator and printer.
Expr to_expr(Ref e) {
  switch (e->kind) {
    case Kind::Const:
      return constant(e->value);
    case Kind::Var:
      return symbol(e->name);
    case Kind::Sum: {
      Expr acc;
      for (const auto& t : e->terms) {
        const std::int64_t c = t.coef < 0 && acc ? -t.coef : t.coef;
        Expr term;
        if (c != 1 && t.term->kind == Kind::Product) {  // c*a*b, left-nested like the parser reads it
          term = constant(c);
          for (Ref f : t.term->args) term = make(Op::Mul, {term, to_expr(f)});
        } else {
          term = to_expr(t.term);
          if (c != 1) term = make(Op::Mul, {constant(c), term});
        }
        acc = !acc ? term : make(t.coef < 0 ? Op::Sub : Op::Add, {acc, term});
      }
      if (e->value > 0) acc = make(Op::Add, {acc, constant(e->value)});
      if (e->value < 0) acc = make(Op::Sub, {acc, constant(-e->value)});
      return acc;
    }
    case Kind::Product: {
      Expr acc = to_expr(e->args[0]);
      for (std::size_t k = 1; k < e->args.size(); ++k) acc = make(Op::Mul, {acc, to_expr(e->args[k])});
      return acc;
    }
    default: {
      std::vector<Expr> args;
      for (Ref a : e->args) args.push_back(to_expr(a));
      return make(op_of(e->kind), std::move(args));
    }
  }
}

std::int64_t evaluate(Ref e, const Values& values) { return lego::evaluate(to_expr(e), values); }

void collect_vars(Ref e, std::set<std::string>& out) {
  if (e->kind == Kind::Var) out.insert(e->name);
  for (const auto& t : e->terms) collect_vars(t.term, out);
  for (Ref a : e->args) collect_vars(a, out);
}

std::string debug_string(Ref e) { return to_string(to_expr(e)); }

}  // namespace lego::sym
