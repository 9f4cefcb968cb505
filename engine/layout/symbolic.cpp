#include "layout/symbolic.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <set>

#include "layout/bound.hpp"
#include "layout/tiling.hpp"
#include "layout/verify.hpp"

namespace lego {

using sym::Kind;
using sym::Ref;

std::vector<Ref> SymOrderBy::dims() const {
  std::vector<Ref> v;
  for (const auto& p : pieces) v.insert(v.end(), p.dims.begin(), p.dims.end());
  return v;
}

namespace {

Ref product(sym::Pool& pool, const std::vector<Ref>& v) {
  Ref p = pool.constant(1);
  for (Ref x : v) p = pool.mul(p, x);
  return p;
}

std::int64_t constant_param(const GenPSpec& g, std::size_t k, sym::Pool& pool, const Env& env) {
  Ref r = pool.from_expr(substitute(g.params[k], env));
  if (!sym::is_const(r))
    throw LegoError(g.params[k]->span,
                    g.library + "'s parameters must be known numbers; bind '" + to_string(g.params[k]) + "' with --bind");
  return r->value;
}

std::int64_t constant_extent(Ref r, const GenPSpec& g, Span at) {
  if (!sym::is_const(r)) throw LegoError(at, g.library + " needs numeric extents; bind the sizes with --bind");
  return r->value;
}

}  // namespace

std::set<std::string> free_symbols(const LayoutAst& ast, const Env& env) {
  std::set<std::string> free;
  auto note = [&](const Expr& e) {
    std::set<std::string> s;
    collect_symbols(e, s);
    for (const auto& name : s)
      if (!env.count(name)) free.insert(name);
  };
  for (const auto& o : ast.chain)
    for (const auto& p : o.pieces) {
      for (const auto& d : p.dims) note(d);
      for (const auto& q : p.genp.params) note(q);
    }
  for (const auto& g : ast.groups)
    for (const auto& d : g) note(d);
  if (ast.expand_to)
    for (const auto& d : *ast.expand_to) note(d);
  return free;
}

Derivation::Derivation(sym::Pool& pool, const LayoutAst& ast, const Env& env, const std::vector<Expr>& constraints)
    : pool_(pool), env_(env) {
  // Everything bound: the numeric binder checks every rule, with locations.
  const std::set<std::string> free = free_symbols(ast, env);
  symbols_.assign(free.begin(), free.end());
  if (free.empty()) {
    BoundLayout bound = bind(ast, env);
    validate_user_genps(bound);  // every rule, with values
    if (bound.injective) footprint_ = bound.physical_size();
  } else
    validate_structure(ast);
  for (const Expr& c : constraints) take_constraint(c);

  auto ref = [&](const Expr& e) {
    Ref r = pool_.from_expr(substitute(e, env), substitutions_);
    if (sym::is_const(r) && r->value < 1)
      throw LegoError(e->span, "extent '" + to_string(e) + "' is " + std::to_string(r->value) + "; extents must be at least 1");
    return r;
  };
  auto refs = [&](const std::vector<Expr>& v) {
    std::vector<Ref> out;
    for (const auto& e : v) out.push_back(ref(e));
    return out;
  };

  for (const auto& o : ast.chain) {
    SymOrderBy so;
    so.span = o.span;
    for (const auto& p : o.pieces) {
      SymPiece sp;
      sp.dims = refs(p.dims);
      sp.span = p.span;
      if (p.kind == PieceKind::GenP) {
        sp.genp = &p.genp;
        // The numeric plan checks this too, but symbolic sizes reach here first.
        if ((p.genp.library == "antidiag" || p.genp.library == "skew") && sp.dims.size() != 2)
          throw LegoError(p.genp.span.known() ? p.genp.span : p.span,
                          p.genp.library + " needs a 2-D tile, got " + std::to_string(sp.dims.size()) + " dimension(s)");
        if (p.genp.library.empty() && p.genp.inv_body.empty()) injective_ = true;
      } else {
        sp.perm = piece_permutation(p);
      }
      so.pieces.push_back(std::move(sp));
    }
    chain_.push_back(std::move(so));
  }

  std::vector<std::vector<Ref>> groups;
  for (const auto& g : ast.groups) groups.push_back(refs(g));
  if (ast.closing == Closing::TileBy) {
    const int d = static_cast<int>(groups[0].size()), q = static_cast<int>(groups.size());
    std::vector<SymOrderBy> chain;
    for (auto& o : chain_) {
      const int dk = static_cast<int>(o.pieces[0].dims.size()), qk = static_cast<int>(o.pieces.size());
      const auto c = retile(o.dims(), dk, qk);
      chain.push_back(std::move(o));
      chain.push_back(SymOrderBy{{SymPiece{c.dims, c.perm, nullptr, {}}}, {}});
    }
    for (const auto& level : groups) shape_.insert(shape_.end(), level.begin(), level.end());
    const auto f = untile(shape_, d, q);
    chain.push_back(SymOrderBy{{SymPiece{f.dims, f.perm, nullptr, {}}}, {}});
    chain_ = std::move(chain);
  } else {
    for (const auto& g : groups) shape_.insert(shape_.end(), g.begin(), g.end());
  }
  // Extents in simplest form (min(GM, GM*q) -> GM), so index ranges and the
  // expressions built from them agree; every extent is a size >= 1 (checked
  // when bound, assumed while symbolic).
  sym::Simplifier extents(pool_, facts({}));
  auto tidy = [&](std::vector<Ref>& v) {
    for (Ref& d : v) {
      d = extents.simplify(d);
      if (sym::is_const(d) && d->value < 1)
        throw LegoError("an extent simplifies to " + std::to_string(d->value) + "; extents must be at least 1");
      sizes_.insert(d);
    }
  };
  for (auto& o : chain_)
    for (auto& p : o.pieces) tidy(p.dims);
  tidy(shape_);
  for (auto& g : groups) tidy(g);
  size_ = product(pool_, shape_);
  physical_size_ = footprint_ > 0 ? pool_.constant(footprint_) : size_;
  for (const auto& o : chain_) {
    Ref n = extents.simplify(product(pool_, o.dims()));
    const std::string a = sym::debug_string(present(n)) + " == " + sym::debug_string(present(size_));
    const Ref difference = extents.simplify(pool_.sub(n, size_));
    if (difference != pool_.constant(0) && std::find(assumptions_.begin(), assumptions_.end(), a) == assumptions_.end()) {
      assumptions_.push_back(a);
      size_differences_.push_back(difference);
    }
  }
  if (ast.expand_to) {
    std::vector<Ref> expanded;
    if (ast.closing == Closing::TileBy) {
      expanded.assign(groups[0].size(), pool_.constant(1));
      for (const auto& level : groups)
        for (std::size_t k = 0; k < level.size(); ++k) expanded[k] = pool_.mul(expanded[k], level[k]);
    } else {
      expanded = shape_;
    }
    std::vector<Ref> original = refs(*ast.expand_to);
    tidy(original);
    tidy(expanded);
    expand_ = std::make_pair(original, expanded);
    physical_size_ = product(pool_, expand_->first);
  }
}

void Derivation::take_constraint(const Expr& c) {
  auto free_symbol = [&](const Expr& e) { return e->op == Op::Sym && !env_.count(e->name) && !substitutions_.count(e->name); };
  // A % B == 0 with A an unbound size and B a product of sizes.
  if (c->op == Op::Eq && c->args[0]->op == Op::Mod && c->args[1]->op == Op::Const && c->args[1]->value == 0) {
    const Expr& a = c->args[0]->args[0];
    if (!free_symbol(a)) return;
    // A must not occur in an earlier substitution or in its own divisor,
    // or the substitutions would be circular.
    std::set<std::string> used;
    collect_symbols(c->args[0]->args[1], used);
    for (const auto& m : multiples_) {
      if (m.divisor_symbols.count(a->name)) return;
    }
    if (used.count(a->name)) return;
    Ref b = pool_.from_expr(substitute(c->args[0]->args[1], env_), substitutions_);
    const bool monomial = b->kind == Kind::Var || b->kind == Kind::Product || (sym::is_const(b) && b->value > 0);
    if (!monomial) return;
    // A name no user symbol has (it never reaches the output: present() folds it back).
    Ref q = pool_.var("__" + a->name + "_quotient" + std::to_string(multiples_.size()));
    substitutions_[a->name] = pool_.mul(b, q);
    for (const auto& m : multiples_)
      if (used.count(m.name)) used.insert(m.divisor_symbols.begin(), m.divisor_symbols.end());
    multiples_.push_back({a->name, q, b, used});
    symbols_.push_back(q->name);
    sizes_.insert(q);
    sizes_.insert(pool_.floordiv(pool_.var(a->name), b));  // how q is printed
    return;
  }
  // Bounds between a size and a number, either way round.
  const bool cmp = c->op == Op::Ge || c->op == Op::Gt || c->op == Op::Le || c->op == Op::Lt;
  if (!cmp) return;
  Expr lhs = c->args[0], rhs = c->args[1];
  Op op = c->op;
  if (lhs->op == Op::Const) {
    std::swap(lhs, rhs);
    op = op == Op::Ge ? Op::Le : op == Op::Gt ? Op::Lt : op == Op::Le ? Op::Ge : Op::Gt;
  }
  if (!free_symbol(lhs) || rhs->op != Op::Const) return;
  auto& [lo, hi] = bounds_.try_emplace(lhs->name, 1, INT64_MAX).first->second;
  const std::int64_t v = rhs->value;
  if (op == Op::Ge) lo = std::max(lo, v);
  if (op == Op::Gt) lo = std::max(lo, v + 1);
  if (op == Op::Le) hi = std::min(hi, v);
  if (op == Op::Lt) hi = std::min(hi, v - 1);
}

// Folds divisor * quotient back into the size it stands for, and writes a
// lone quotient as size // divisor.
Ref Derivation::present(Ref e) const {
  if (multiples_.empty()) return e;
  std::function<Ref(Ref)> undo = [&](Ref x) -> Ref {
    if (x->kind == Kind::Var) {
      for (const auto& m : multiples_)
        if (x == m.quotient) return pool_.floordiv(pool_.var(m.name), undo(m.divisor));  // the divisor may hold quotients too
      return x;
    }
    if (x->kind == Kind::Const) return x;
    if (x->kind == Kind::Product) {
      std::vector<Ref> fs = x->args;
      for (const auto& m : multiples_) {
        const std::vector<Ref> ds = m.divisor->kind == Kind::Product ? m.divisor->args : std::vector<Ref>{m.divisor};
        for (;;) {
          auto qi = std::find(fs.begin(), fs.end(), m.quotient);
          if (qi == fs.end()) break;
          std::vector<Ref> rest = fs;
          rest.erase(rest.begin() + (qi - fs.begin()));
          bool all = true;
          for (Ref d : ds) {
            auto di = std::find(rest.begin(), rest.end(), d);
            if (di == rest.end() || sym::is_const(d)) {
              all = false;
              break;
            }
            rest.erase(di);
          }
          if (!all) break;
          rest.push_back(pool_.var(m.name));
          fs = rest;
        }
      }
      std::vector<Ref> args;
      for (Ref f : fs) args.push_back(undo(f));
      Ref acc = pool_.constant(1);
      for (Ref f : args) acc = pool_.mul(acc, f);
      return acc;
    }
    std::vector<Ref> args;
    if (x->kind == Kind::Sum) {
      for (const auto& t : x->terms) args.push_back(undo(t.term));
    } else {
      for (Ref a : x->args) args.push_back(undo(a));
    }
    return pool_.rebuild(x, args);
  };
  return undo(e);
}

sym::Facts Derivation::facts(const std::vector<std::pair<std::string, Ref>>& index_ranges) const {
  sym::Facts f;
  for (const auto& s : symbols_) {
    f.ranges[s] = {pool_.constant(1), nullptr};
    f.is_parameter[s] = true;
  }
  for (const auto& [name, b] : bounds_)
    f.ranges[name] = {pool_.constant(b.first), b.second == INT64_MAX ? nullptr : pool_.constant(b.second)};
  for (const auto& [name, extent] : index_ranges) f.ranges[name] = {pool_.constant(0), pool_.add_constant(extent, -1)};
  f.sizes = sizes_;
  return f;
}

Ref Derivation::flat(const std::vector<Ref>& idx, const std::vector<Ref>& n, sym::Simplifier& s) const {
  // Distributed (sum of index * weight), not Horner: the div/mod rules see multiples.
  Ref x = pool_.constant(0), weight = pool_.constant(1);
  for (std::size_t k = n.size(); k-- > 0;) {
    x = pool_.add(x, s.prover().expand(pool_.mul(idx[k], weight)));
    weight = pool_.mul(weight, n[k]);
  }
  x = s.simplify(x);
  flattened_[x] = {n, idx};
  return x;
}

std::vector<Ref> Derivation::unflat(Ref x, const std::vector<Ref>& n, sym::Simplifier& s) const {
  // unflat(flat(c, n), n) == c for in-range c, which every coordinate here is.
  if (auto it = flattened_.find(x); it != flattened_.end() && it->second.first == n) return it->second.second;
  std::vector<Ref> out(n.size());
  Ref weight = pool_.constant(1);
  for (std::size_t k = n.size(); k-- > 0;) {
    Ref q = s.simplify(pool_.floordiv(x, weight));
    out[k] = k == 0 ? q : s.simplify(pool_.mod(q, n[k]));  // the top digit needs no mod
    weight = pool_.mul(weight, n[k]);
  }
  return out;
}

Ref Derivation::piece_apply(const SymPiece& p, const std::vector<Ref>& i, sym::Simplifier& s) const {
  sym::Pool& P = pool_;
  if (!p.genp) {
    std::vector<Ref> si, sn;
    for (int t : p.perm) {
      si.push_back(i[t]);
      sn.push_back(p.dims[t]);
    }
    return flat(si, sn, s);
  }
  const GenPSpec& g = *p.genp;
  const Ref size = product(P, p.dims);
  if (g.library.empty()) {
    std::map<std::string, Ref, std::less<>> subst;
    for (std::size_t k = 0; k < g.apply_params.size() && k < i.size(); ++k) subst[g.apply_params[k]] = i[k];
    for (const auto& [name, value] : env_)
      if (!subst.count(name)) subst[name] = P.constant(value);
    return s.simplify(P.from_expr(g.apply_body, subst));
  }
  if (g.library == "antidiag") {
    Ref n = p.dims[0], a = P.add_constant(P.add(i[0], i[1]), 1);
    Ref lower = P.add(P.floordiv(P.mul(a, P.add_constant(a, -1)), P.constant(2)), i[0]);
    Ref b = P.sub(P.scale(2, n), a);
    Ref upper = P.sub(P.add(P.sub(P.mul(n, n), n), i[0]), P.floordiv(P.mul(b, P.add_constant(b, -1)), P.constant(2)));
    return s.simplify(P.select(P.compare(Kind::Le, a, n), lower, upper));
  }
  if (g.library == "reverse") return s.simplify(P.sub(P.add_constant(size, -1), flat(i, p.dims, s)));
  if (g.library == "skew") return s.simplify(P.add(P.mul(i[0], p.dims[1]), P.mod(P.add(i[0], i[1]), p.dims[1])));
  if (g.library == "cyclic") {
    const std::int64_t block = constant_param(g, 0, P, env_), procs = constant_param(g, 1, P, env_);
    Ref gflat = flat(i, p.dims, s), rounds = P.floordiv(size, P.constant(block * procs));
    Ref t = P.floordiv(gflat, P.constant(block)), b = P.mod(gflat, P.constant(block));
    Ref owner = P.mod(t, P.constant(procs)), round = P.floordiv(t, P.constant(procs));
    return s.simplify(P.add(P.scale(block, P.add(P.mul(owner, rounds), round)), b));
  }
  if (g.library == "morton") {
    // Bits are disjoint, so the interleave is a sum of bit digits.
    std::vector<int> bits;
    int max_bits = 0;
    for (Ref d : p.dims) {
      const std::int64_t v = constant_extent(d, g, p.span);
      bits.push_back(__builtin_ctzll(static_cast<unsigned long long>(v)));
      max_bits = std::max(max_bits, bits.back());
    }
    std::vector<sym::Term> terms;
    int pos = 0;
    for (int b = 0; b < max_bits; ++b)
      for (std::size_t k = p.dims.size(); k-- > 0;)
        if (b < bits[k])
          terms.push_back({std::int64_t{1} << pos++, P.mod(P.floordiv(i[k], P.constant(std::int64_t{1} << b)), P.constant(2))});
    return s.simplify(P.sum(0, terms));
  }
  if (g.library == "swizzle") {
    const std::int64_t b = constant_param(g, 0, P, env_), m = constant_param(g, 1, P, env_), sh = constant_param(g, 2, P, env_);
    Ref o = flat(i, p.dims, s);
    Ref moved = P.bits(Kind::Shr, P.bits(Kind::BitAnd, o, P.constant(((std::int64_t{1} << b) - 1) << (m + sh))), P.constant(sh));
    return s.simplify(P.bits(Kind::BitXor, o, moved));
  }
  throw LegoError(p.span, "unknown GenP '" + g.library + "'");
}

std::vector<Ref> Derivation::piece_inv(const SymPiece& p, Ref x, sym::Simplifier& s) const {
  sym::Pool& P = pool_;
  if (!p.genp) {
    std::vector<Ref> sn;
    for (int t : p.perm) sn.push_back(p.dims[t]);
    const auto si = unflat(x, sn, s);
    std::vector<Ref> i(p.perm.size());
    for (std::size_t t = 0; t < p.perm.size(); ++t) i[p.perm[t]] = si[t];
    return i;
  }
  const GenPSpec& g = *p.genp;
  const Ref size = product(P, p.dims);
  if (g.library.empty()) {
    std::map<std::string, Ref, std::less<>> subst;
    subst[g.inv_params[0]] = x;
    for (const auto& [name, value] : env_)
      if (!subst.count(name)) subst[name] = P.constant(value);
    std::vector<Ref> out;
    for (const auto& e : g.inv_body) out.push_back(s.simplify(P.from_expr(e, subst)));
    return out;
  }
  if (g.library == "antidiag") {
    Ref n = p.dims[0], two = P.constant(2);
    auto tri = [&](Ref v) { return P.floordiv(P.add_constant(P.isqrt(P.add_constant(P.scale(8, v), 1)), 1), two); };
    // Lower triangle: a = (1 + isqrt(8x+1)) // 2, i = x - a(a-1)/2, j = a-1-i.
    Ref a = tri(x);
    Ref i_lo = P.sub(x, P.floordiv(P.mul(a, P.add_constant(a, -1)), two));
    Ref j_lo = P.sub(P.add_constant(a, -1), i_lo);
    // Upper triangle, counted from the end.
    Ref y = P.sub(P.add_constant(P.mul(n, n), -1), x), b = tri(y), a2 = P.sub(P.scale(2, n), b);
    Ref start = P.sub(P.mul(n, n), P.floordiv(P.mul(b, P.add_constant(b, 1)), two));
    Ref i_hi = P.add(P.sub(a2, n), P.sub(x, start));
    Ref j_hi = P.sub(P.add_constant(a2, -1), i_hi);
    Ref in_lower = P.compare(Kind::Lt, x, P.floordiv(P.mul(n, P.add_constant(n, 1)), two));
    return {s.simplify(P.select(in_lower, i_lo, i_hi)), s.simplify(P.select(in_lower, j_lo, j_hi))};
  }
  if (g.library == "reverse") return unflat(s.simplify(P.sub(P.add_constant(size, -1), x)), p.dims, s);
  if (g.library == "skew") {
    Ref n = p.dims[1], row = s.simplify(P.floordiv(x, n));
    return {row, s.simplify(P.mod(P.sub(P.mod(x, n), row), n))};
  }
  if (g.library == "cyclic") {
    const std::int64_t block = constant_param(g, 0, P, env_), procs = constant_param(g, 1, P, env_);
    Ref rounds = P.floordiv(size, P.constant(block * procs));
    Ref b = P.mod(x, P.constant(block)), t = P.floordiv(x, P.constant(block));
    Ref owner = P.floordiv(t, rounds), round = P.mod(t, rounds);
    return unflat(s.simplify(P.add(P.scale(block, P.add(P.scale(procs, round), owner)), b)), p.dims, s);
  }
  if (g.library == "morton") {
    std::vector<int> bits;
    int max_bits = 0;
    for (Ref d : p.dims) {
      bits.push_back(__builtin_ctzll(static_cast<unsigned long long>(constant_extent(d, g, p.span))));
      max_bits = std::max(max_bits, bits.back());
    }
    std::vector<std::vector<sym::Term>> terms(p.dims.size());
    int pos = 0;
    for (int b = 0; b < max_bits; ++b)
      for (std::size_t k = p.dims.size(); k-- > 0;)
        if (b < bits[k])
          terms[k].push_back({std::int64_t{1} << b, P.mod(P.floordiv(x, P.constant(std::int64_t{1} << pos++)), P.constant(2))});
    std::vector<Ref> out;
    for (const auto& t : terms) out.push_back(s.simplify(P.sum(0, t)));
    return out;
  }
  if (g.library == "swizzle") {
    const std::int64_t b = constant_param(g, 0, P, env_), m = constant_param(g, 1, P, env_), sh = constant_param(g, 2, P, env_);
    Ref moved = P.bits(Kind::Shr, P.bits(Kind::BitAnd, x, P.constant(((std::int64_t{1} << b) - 1) << (m + sh))), P.constant(sh));
    return unflat(s.simplify(P.bits(Kind::BitXor, x, moved)), p.dims, s);
  }
  throw LegoError(p.span, "unknown GenP '" + g.library + "'");
}

Ref Derivation::apply(const std::vector<Ref>& idx, sym::Simplifier& s) const {
  if (idx.size() != shape_.size())
    throw LegoError("the layout takes " + std::to_string(shape_.size()) + " indices, got " + std::to_string(idx.size()));
  Ref x = flat(idx, shape_, s);
  for (std::size_t k = chain_.size(); k-- > 0;) {
    const SymOrderBy& o = chain_[k];
    const auto digits = unflat(x, o.dims(), s);
    Ref acc = pool_.constant(0);
    std::size_t at = 0;
    for (const auto& p : o.pieces) {
      const std::vector<Ref> slice(digits.begin() + static_cast<std::ptrdiff_t>(at),
                                   digits.begin() + static_cast<std::ptrdiff_t>(at + p.dims.size()));
      at += p.dims.size();
      acc = pool_.add(pool_.mul(acc, product(pool_, p.dims)), piece_apply(p, slice, s));
    }
    x = s.simplify(acc);
  }
  if (!expand_) return present(x);
  const auto& [original, expanded] = *expand_;
  const auto c = unflat(x, expanded, s);
  Ref inside = pool_.constant(1);
  for (std::size_t k = 0; k < c.size(); ++k) inside = pool_.logic(Kind::And, inside, pool_.compare(Kind::Lt, c[k], original[k]));
  return present(s.simplify(pool_.select(inside, flat(c, original, s), pool_.constant(-1))));
}

std::vector<Ref> Derivation::inv(Ref x, sym::Simplifier& s) const {
  if (injective_) throw LegoError("this layout is apply-only (its GenP has no inverse); inv is not defined");
  if (expand_) x = flat(unflat(x, expand_->first, s), expand_->second, s);
  for (const SymOrderBy& o : chain_) {
    std::vector<std::vector<Ref>> parts(o.pieces.size());
    Ref rest = x;
    for (std::size_t p = o.pieces.size(); p-- > 0;) {
      Ref n = product(pool_, o.pieces[p].dims);
      Ref digit = p == 0 ? rest : s.simplify(pool_.mod(rest, n));
      parts[p] = piece_inv(o.pieces[p], digit, s);
      rest = s.simplify(pool_.floordiv(rest, n));
    }
    std::vector<Ref> coords;
    for (const auto& part : parts) coords.insert(coords.end(), part.begin(), part.end());
    x = flat(coords, o.dims(), s);
  }
  auto out = unflat(x, shape_, s);
  for (Ref& e : out) e = present(e);
  return out;
}

}  // namespace lego
