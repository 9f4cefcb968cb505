#include "layout/derive.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <set>

#include "layout/symbolic.hpp"
#include "sym/print_mlir.hpp"
#include "sym/simplify.hpp"

namespace lego {

namespace {

bool is_integer(const std::string& s, std::int64_t& v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

// The coefficient of variable `name` when e is affine in it: it appears only
// as a top-level term of the sum (0 when it does not appear at all).
std::optional<std::int64_t> linear_coefficient(sym::Ref e, const std::string& name) {
  const auto mentions = [&](sym::Ref t) {
    std::set<std::string> vars;
    sym::collect_vars(t, vars);
    return vars.count(name) > 0;
  };
  if (e->kind == sym::Kind::Var) return e->name == name ? 1 : 0;
  if (e->kind != sym::Kind::Sum) return mentions(e) ? std::nullopt : std::optional<std::int64_t>(0);
  std::int64_t coef = 0;
  for (const auto& t : e->terms) {
    if (t.term->kind == sym::Kind::Var && t.term->name == name)
      coef += t.coef;
    else if (mentions(t.term))
      return std::nullopt;
  }
  return coef;
}

}  // namespace

DeriveResult derive(const LayoutAst& layout, const Env& env, const DeriveRequest& r) {
  sym::Pool pool;
  const Derivation d(pool, layout, env, r.constraints);
  const std::vector<sym::Ref> extents = r.inverse ? std::vector<sym::Ref>{d.physical_size()} : d.shape();
  if (r.indices.size() != extents.size())
    throw LegoError(std::string(r.inverse ? "--inv" : "--apply") + " takes " + std::to_string(extents.size()) +
                    " index(es) for this layout, got " + std::to_string(r.indices.size()));
  std::vector<std::pair<std::string, sym::Ref>> ranges;
  std::vector<sym::Ref> idx;
  const std::set<std::string> sizes = free_symbols(layout, env);
  for (const auto& name : r.indices)
    if (sizes.count(name) || env.count(name))
      throw LegoError("index name '" + name + "' is also a size of the layout; give the index another name");
  sym::PrintOptions options = sym::default_options(r.lang);
  options.strength_reduce = options.strength_reduce || r.strength_reduce;
  std::vector<std::size_t> slices;  // positions written ':' (Triton: a whole dimension)
  for (std::size_t k = 0; k < r.indices.size(); ++k)
    if (r.indices[k] == ":") slices.push_back(k);
  if (!slices.empty() && r.lang != sym::Lang::Triton) throw LegoError("':' (a whole dimension) is for Triton (--lang triton)");
  for (std::size_t k = 0; k < r.indices.size(); ++k) {
    std::int64_t v = 0;
    if (r.indices[k] == ":") {
      // tl.arange over the extent, broadcast along this slice's own axis.
      const std::string name = "__slice" + std::to_string(k);
      const std::size_t axis = static_cast<std::size_t>(std::find(slices.begin(), slices.end(), k) - slices.begin());
      std::string text = "tl.arange(0, " + sym::debug_string(d.present(extents[k])) + ")";
      if (slices.size() > 1) {
        text += "[";
        for (std::size_t a = 0; a < slices.size(); ++a) text += std::string(a ? ", " : "") + (a == axis ? ":" : "None");
        text += "]";
      }
      options.var_text[name] = text;
      ranges.emplace_back(name, extents[k]);
      idx.push_back(pool.var(name));
    } else if (is_integer(r.indices[k], v)) {
      if (v < 0 || (sym::is_const(extents[k]) && v >= extents[k]->value))
        throw LegoError("index " + std::to_string(k) + " is " + std::to_string(v) + ", outside [0, " + sym::debug_string(extents[k]) + ")");
      idx.push_back(pool.constant(v));
    } else if (auto def = r.index_definitions.find(r.indices[k]); def != r.index_definitions.end()) {
      std::vector<sym::Term> terms;
      for (const auto& [var, coef] : def->second) terms.push_back({coef, pool.var(var)});
      idx.push_back(pool.sum(0, terms));
    } else {
      ranges.emplace_back(r.indices[k], extents[k]);
      idx.push_back(pool.var(r.indices[k]));
    }
  }
  for (const auto& v : r.loop_variables) {
    if (sizes.count(v.name) || env.count(v.name))
      throw LegoError("loop variable '" + v.name + "' is also a size of the layout; give the index another name");
    ranges.emplace_back(v.name, pool.constant(v.extent));
  }
  sym::Simplifier simplifier(pool, d.facts(ranges));
  if (r.second_prover) simplifier.prover().set_fallback(r.second_prover);
  std::vector<sym::RuleStep> steps;
  if (r.explain) simplifier.record(&steps);
  const std::vector<sym::Ref> results = r.inverse ? d.inv(idx[0], simplifier) : std::vector<sym::Ref>{d.apply(idx, simplifier)};
  DeriveResult out;
  for (const auto& step : steps)
    out.steps.push_back({sym::rule_info(step.rule).name, sym::debug_string(d.present(step.before)),
                         sym::debug_string(d.present(step.after)), sym::rule_info(step.rule).condition});
  if (r.explain)
    for (const auto& row : sym::rule_table())
      if (const int hits = simplifier.hits()[static_cast<std::size_t>(row.rule)]) out.rule_hits.emplace_back(row.name, hits);
  out.assumptions = d.assumptions();
  bool fits = true;
  std::function<void(sym::Ref)> check = [&](sym::Ref e) {
    if (!fits) return;
    if (!simplifier.prover().interval(e).fits_int32()) fits = false;
    for (const auto& t : e->terms) check(t.term);
    for (sym::Ref a : e->args) check(a);
  };
  for (sym::Ref e : results) check(e);
  if (fits) out.index_type = "int32_t";
  if (!r.inverse)
    for (const auto& v : r.loop_variables)
      if (auto stride = linear_coefficient(results[0], v.name)) out.strides[v.name] = *stride;
  if (!r.inverse && !r.loop_variables.empty()) {
    std::set<std::string> vars;
    sym::collect_vars(results[0], vars);
    bool affine = true;
    for (const auto& v : vars) affine = affine && out.strides.count(v) > 0;
    const sym::Ref e = results[0];
    if (affine) out.constant = e->kind == sym::Kind::Sum || e->kind == sym::Kind::Const ? e->value : 0;
  }
  if (r.lang == sym::Lang::Mlir) {
    std::set<std::string> free;
    for (sym::Ref e : results) sym::collect_vars(e, free);
    for (const auto& [name, extent] : ranges) {
      out.arguments.push_back(name);
      free.erase(name);
    }
    out.arguments.insert(out.arguments.end(), free.begin(), free.end());
    out.exprs.push_back(sym::print_mlir_function(r.inverse ? "lego_inv" : "lego_apply", out.arguments, results, simplifier.prover()));
    for (sym::Ref e : results) out.ops += sym::op_count(e);
    return out;
  }
  if (r.lang == sym::Lang::Python) {  // one evaluable expression per result
    for (sym::Ref e : results) {
      out.exprs.push_back(sym::print(e, simplifier.prover(), options));
      out.ops += sym::op_count(e);
    }
    return out;
  }
  // Triton computes in the indices' type, int32 (tl.arange, tl.program_id):
  // where a value of a kernel's bound sizes may not fit, each index is
  // widened first. With sizes left as symbols (lego expr) no bound is known,
  // and the expression is printed as it is.
  if (r.lang == sym::Lang::Triton && !fits && sizes.empty())
    for (const auto& [name, extent] : ranges) {
      auto& text = options.var_text[name];
      text = "(" + (text.empty() ? name : text) + ").to(tl.int64)";
    }
  sym::PrintedBlock block = sym::print_shared(results, simplifier.prover(), options);
  out.temporaries = std::move(block.temporaries);
  out.exprs = std::move(block.results);
  out.ops = block.ops;
  return out;
}

std::string to_string(const ExplainedStep& step) {
  return step.rule + ": " + step.before + "  ->  " + step.after + (step.condition.empty() ? "" : "   [" + step.condition + "]");
}

}  // namespace lego
