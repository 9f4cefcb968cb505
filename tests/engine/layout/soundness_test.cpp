// Soundness of derived index expressions: on random layouts with random
// bindings (some sizes left symbolic), the simplified symbolic apply and inv,
// evaluated, equal the numeric layout at every in-range index. Zero
// mismatches allowed. The count comes from RC_PARAMS (max_success).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/layout/random_layout.hpp"
#include "expr/compiled.hpp"
#include "expr/parser.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/shape.hpp"
#include "layout/symbolic.hpp"
#include "poly/isl_prover.hpp"
#include "sym/print.hpp"

namespace lego {
namespace {

using testing::coin;

RC_GTEST_PROP(Soundness, DerivedApplyAndInvMatchTheNumericLayout, ()) {
  testing::Extents ext;
  ext.symbolic = true;
  const std::string text = testing::random_layout(/*allow_expand=*/true, ext);
  const LayoutAst ast = parse_layout(text);
  const Plan plan = make_plan(ast, ext.bindings);
  // Leave a random subset of the sizes symbolic.
  Env known;
  std::vector<std::string> unknown;
  for (const auto& [name, value] : ext.bindings) {
    if (coin())
      known[name] = value;
    else
      unknown.push_back(name);
  }
  RC_TAG(unknown.empty() ? "all sizes bound" : "some sizes symbolic");
  RC_LOG() << text << "\nunbound:";
  for (const auto& u : unknown) RC_LOG() << " " << u << "=" << ext.bindings.at(u);
  RC_LOG() << "\n";

  // Random true constraints on the unbound sizes: divisibility (which the
  // derivation turns into a substitution) and bounds.
  std::vector<Expr> constraints;
  for (const auto& a : unknown)
    for (const auto& b : unknown) {
      const std::int64_t va = ext.bindings.at(a), vb = ext.bindings.at(b);
      if (a != b && va % vb == 0 && coin()) constraints.push_back(parse_expression(a + " % " + b + " == 0"));
    }
  for (const auto& a : unknown)
    if (coin())
      constraints.push_back(parse_expression(a + " >= " + std::to_string(testing::uniform<std::int64_t>(1, ext.bindings.at(a) + 1))));
  RC_TAG(constraints.empty() ? "no constraints" : "constraints");
  for (const auto& c : constraints) RC_LOG() << "where " << to_string(c) << "\n";

  sym::Pool pool;
  const Derivation d(pool, ast, known, constraints);
  std::vector<std::pair<std::string, sym::Ref>> ranges;
  std::vector<sym::Ref> idx;
  std::vector<std::string> vars;
  for (std::size_t k = 0; k < d.shape().size(); ++k) {
    vars.push_back("i" + std::to_string(k));
    ranges.emplace_back(vars.back(), d.shape()[k]);
    idx.push_back(pool.var(vars.back()));
  }
  poly::IslProver isl;  // the second prover, so rewrites it enables are checked too
  sym::Simplifier s(pool, d.facts(ranges));
  if (coin()) poly::use_isl(s.prover(), isl);
  const sym::Ref apply = s.simplify(d.apply(idx, s));
  for (const auto& u : unknown) vars.push_back(u);
  const CompiledExpr compiled_apply(sym::to_expr(apply), vars);
  // The Python printer's text, read back by our (Python-compatible) parser.
  const std::string python = sym::print(apply, s.prover(), sym::default_options(sym::Lang::Python));
  RC_LOG() << "python: " << python << "\n";
  const CompiledExpr printed_apply(parse_expression(python), vars);
  std::vector<std::int64_t> values(vars.size());
  for (std::size_t k = 0; k < unknown.size(); ++k) values[d.shape().size() + k] = ext.bindings.at(unknown[k]);
  Shape i(plan.shape().size(), 0);
  do {
    std::copy(i.begin(), i.end(), values.begin());
    const std::int64_t want = plan.apply(i.data());
    RC_ASSERT(compiled_apply(values.data()) == want);
    RC_ASSERT(printed_apply(values.data()) == want);
  } while (next_index(i, plan.shape()));

  // inv: one symbol x over the physical range.
  sym::Simplifier si(pool, d.facts({{"x", d.physical_size()}}));
  if (coin()) poly::use_isl(si.prover(), isl);
  const auto inv = d.inv(pool.var("x"), si);
  std::vector<std::string> inv_vars = {"x"};
  for (const auto& u : unknown) inv_vars.push_back(u);
  std::vector<CompiledExpr> compiled_inv, printed_inv;
  for (sym::Ref e : inv) {
    compiled_inv.emplace_back(sym::to_expr(e), inv_vars);
    printed_inv.emplace_back(parse_expression(sym::print(e, si.prover(), sym::default_options(sym::Lang::Python))), inv_vars);
  }
  std::vector<std::int64_t> inv_values(inv_vars.size());
  for (std::size_t k = 0; k < unknown.size(); ++k) inv_values[1 + k] = ext.bindings.at(unknown[k]);
  for (std::int64_t x = 0; x < plan.physical_size(); ++x) {
    inv_values[0] = x;
    const Shape want = plan.inv_checked(x);
    for (std::size_t k = 0; k < inv.size(); ++k) {
      const std::int64_t got = compiled_inv[k](inv_values.data());
      if (got != want[k]) RC_LOG() << "inv[" << k << "] = " << sym::debug_string(inv[k]) << " at x=" << x << "\n";
      RC_ASSERT(got == want[k]);
      RC_ASSERT(printed_inv[k](inv_values.data()) == want[k]);
    }
  }
}

}  // namespace
}  // namespace lego
