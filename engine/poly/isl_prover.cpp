#include "poly/isl_prover.hpp"

#include <isl/set.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "poly/isl_context.hpp"

namespace lego::poly {

using sym::Kind;
using sym::Ref;

namespace {

bool quasi_affine(Ref e, std::string& out, Ref* offending) {
  switch (e->kind) {
    case Kind::Const:
      out = std::to_string(e->value);
      return true;
    case Kind::Var:
      out = e->name;
      return true;
    case Kind::Sum: {
      // ISL wants a literal coefficient before '*': "7 - 4*(floor((x)/4))".
      std::string s = std::to_string(e->value);
      for (const auto& t : e->terms) {
        std::string term;
        if (!quasi_affine(t.term, term, offending)) return false;
        s += (t.coef < 0 ? " - " : " + ") + std::to_string(t.coef < 0 ? -t.coef : t.coef) + "*(" + term + ")";
      }
      out = s;
      return true;
    }
    case Kind::FloorDiv:
    case Kind::Mod: {
      Ref d = e->args[1];
      std::string a;
      if (!quasi_affine(e->args[0], a, offending)) return false;
      if (!sym::is_const(d) || d->value <= 0) {
        if (offending) *offending = e;
        return false;
      }
      out = e->kind == Kind::FloorDiv ? "floor((" + a + ")/" + std::to_string(d->value) + ")"
                                      : "((" + a + ") mod " + std::to_string(d->value) + ")";
      return true;
    }
    default:
      if (offending) *offending = e;
      return false;  // products of variables, min/max, select, bit ops
  }
}

}  // namespace

std::optional<std::string> to_isl(Ref e, Ref* offending) {
  std::string s;
  if (!quasi_affine(e, s, offending)) return std::nullopt;
  return s;
}

struct IslProver::Ctx : IslContext {};

IslProver::IslProver() : ctx_(std::make_unique<Ctx>()) {}
IslProver::~IslProver() = default;

bool IslProver::nonneg(Ref e, const sym::Facts& facts) {
  if (auto it = cache_.find(e); it != cache_.end()) return it->second;
  bool proved = false;
  if (auto text = to_isl(e)) {
    std::set<std::string> vars;
    sym::collect_vars(e, vars);
    // Ranges of the indices involve more variables (their extents).
    std::set<std::string> seen;
    std::string constraints = "(" + *text + ") < 0";
    std::set<std::string> indices, params;
    bool ok = true;
    while (ok && !vars.empty()) {
      const std::string v = *vars.begin();
      vars.erase(vars.begin());
      if (!seen.insert(v).second) continue;
      auto p = facts.is_parameter.find(v);
      const bool parameter = p != facts.is_parameter.end() && p->second;
      (parameter ? params : indices).insert(v);
      auto r = facts.ranges.find(v);
      if (r == facts.ranges.end()) continue;
      for (auto [bound, op] : {std::pair{r->second.lo, " >= "}, std::pair{r->second.hi, " <= "}}) {
        if (!bound) continue;
        auto b = to_isl(bound);
        if (!b) continue;  // an unusable bound only weakens the query
        constraints += " and " + v + op + "(" + *b + ")";
        sym::collect_vars(bound, vars);
      }
    }
    for (Ref size : facts.sizes) {
      std::set<std::string> sv;
      sym::collect_vars(size, sv);
      bool known = !sv.empty();
      for (const auto& v : sv) known = known && seen.count(v);
      if (auto t = to_isl(size); t && known) constraints += " and (" + *t + ") >= 1";
    }
    auto join = [](const std::set<std::string>& s) {
      std::string out;
      for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
      return out;
    };
    const std::string query = "[" + join(params) + "] -> { [" + join(indices) + "] : " + constraints + " }";
    ++queries_;
    if (std::getenv("LEGO_ISL_DEBUG")) std::fprintf(stderr, "isl: %s\n", query.c_str());  // to see what ISL is asked
    if (isl_set* set = isl_set_read_from_str(ctx_->ctx, query.c_str())) {
      proved = isl_set_is_empty(set) == isl_bool_true;
      isl_set_free(set);
    }
  }
  cache_[e] = proved;
  return proved;
}

void use_isl(sym::Prover& prover, IslProver& isl) {
  prover.set_fallback([&isl](Ref e, const sym::Facts& facts) { return isl.nonneg(e, facts); });
}

}  // namespace lego::poly
