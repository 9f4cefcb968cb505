#include "layout/symbolic_check.hpp"

#include <functional>

#include "layout/symbolic.hpp"

namespace lego {

namespace {

using sym::Kind;
using sym::Ref;

// Affine: a sum of (index * size product) terms; quasi-affine: adds floor
// div/mod; anything else (select, isqrt, bit ops, index*index) is general.
LayoutClass classify(Ref e, const std::set<std::string>& indices) {
  bool quasi = false, general = false;
  std::function<int(Ref)> degree = [&](Ref x) -> int {  // degree in the indices
    switch (x->kind) {
      case Kind::Const:
        return 0;
      case Kind::Var:
        return indices.count(x->name) ? 1 : 0;
      case Kind::Sum: {
        int d = 0;
        for (const auto& t : x->terms) d = std::max(d, degree(t.term));
        return d;
      }
      case Kind::Product: {
        int d = 0;
        for (Ref f : x->args) d += degree(f);
        if (d > 1) general = true;
        return d;
      }
      case Kind::FloorDiv:
      case Kind::Mod: {
        quasi = true;
        if (degree(x->args[1]) > 0) general = true;
        return degree(x->args[0]) > 0 ? 1 : 0;
      }
      default:
        for (Ref a : x->args)
          if (degree(a) > 0) general = true;
        return 1;
    }
  };
  degree(e);
  return general ? LayoutClass::General : quasi ? LayoutClass::QuasiAffine : LayoutClass::Affine;
}

}  // namespace

SymbolicVerdict check_symbolic(const LayoutAst& layout, const Env& env, const std::vector<Expr>& constraints) {
  SymbolicVerdict v;
  const auto free = free_symbols(layout, env);
  v.symbols.assign(free.begin(), free.end());
  sym::Pool pool;
  const Derivation d(pool, layout, env, constraints);
  std::vector<std::pair<std::string, Ref>> ranges;
  std::vector<Ref> idx;
  std::set<std::string> names;
  for (std::size_t k = 0; k < d.shape().size(); ++k) {
    const std::string name = "__i" + std::to_string(k);
    names.insert(name);
    ranges.emplace_back(name, d.shape()[k]);
    idx.push_back(pool.var(name));
  }
  sym::Simplifier s(pool, d.facts(ranges));
  v.layout_class = classify(d.apply(idx, s), names);
  for (std::size_t k = 0; k < d.shape().size(); ++k) v.shape += (k ? "," : "(") + sym::debug_string(d.present(d.shape()[k]));
  v.shape += ")";
  v.size = sym::debug_string(d.present(d.size()));

  if (!d.has_inverse()) {
    v.evidence = "apply-only layout (its GenP has no inverse): not a bijection by design";
    return v;
  }
  if (d.expanded()) {
    v.evidence = "ExpandBy needs its extents within the tiled box, which depends on the values; bind the sizes to check";
    return v;
  }
  for (const auto& o : d.chain())
    for (const auto& p : o.pieces) {
      if (!p.genp) continue;
      const std::string& lib = p.genp->library;
      if (lib.empty()) {
        v.evidence = "a user-defined GenP is checked exhaustively, which needs values; bind the sizes to check";
        return v;
      }
      if (lib == "antidiag" && p.dims[0] != p.dims[1]) {
        v.evidence =
            "antidiag needs a square tile, and " + sym::debug_string(p.dims[0]) + " == " + sym::debug_string(p.dims[1]) + " is not proved";
        return v;
      }
      if (lib == "swizzle" || lib == "cyclic") {
        v.evidence = "" + lib + " needs the tile size to be a multiple of its block, which depends on the values; bind the sizes to check";
        return v;
      }
    }
  if (!d.assumptions().empty()) {
    v.evidence = "needs " + d.assumptions()[0] + "; state it with a constraint (e.g. where N % B == 0) or bind the sizes";
    return v;
  }
  v.proved = true;
  std::string all;
  for (const auto& name : v.symbols) all += (all.empty() ? "" : ", ") + name;
  v.evidence = "proved for all " + all + " >= 1" + (constraints.empty() ? "" : " under the constraints") +
               ": every piece is a bijection and every OrderBy has the " + v.size + " elements of the logical shape";
  return v;
}

}  // namespace lego
