#include "poly/isl_layout.hpp"

#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/val.h>

#include <algorithm>
#include <memory>
#include <set>

#include "layout/symbolic.hpp"
#include "poly/isl_context.hpp"
#include "poly/isl_prover.hpp"
#include "poly/isl_questions.hpp"

namespace lego::poly {

namespace {

using sym::Ref;

const char* const kPosition = "lego_x";

// The parameters' own constraints (sizes >= 1, bounds from the constraints),
// as far as they are quasi-affine; dropping one only weakens the context,
// which can make a "bijective" verdict fail but never makes one wrong.
std::string context(const std::set<std::string>& params, const sym::Facts& facts) {
  std::vector<std::string> parts;
  for (const auto& p : params) {
    auto r = facts.ranges.find(p);
    if (r == facts.ranges.end()) continue;
    if (r->second.lo)
      if (auto b = to_isl(r->second.lo)) parts.push_back(p + " >= " + *b);
    if (r->second.hi)
      if (auto b = to_isl(r->second.hi)) parts.push_back(p + " <= " + *b);
  }
  for (Ref size : facts.sizes) {
    std::set<std::string> vars;
    sym::collect_vars(size, vars);
    bool all_params = !vars.empty();
    for (const auto& v : vars) all_params = all_params && params.count(v);
    if (auto t = to_isl(size); t && all_params) parts.push_back("(" + *t + ") >= 1");
  }
  return parts.empty() ? "" : " and " + join(parts, " and ");
}

// "N = 3, i = (1, 0)"-style text of a sample point of `set`, whose
// dimensions are named by `dims`.
std::string sample_text(isl_set* set, const std::vector<std::string>& dims) {
  isl_point* pt = isl_set_sample_point(isl_set_copy(set));
  if (!pt || isl_point_is_void(pt) == isl_bool_true) {
    isl_point_free(pt);
    return "";
  }
  std::vector<std::string> parts;
  const isl_size nparam = isl_set_dim(set, isl_dim_param);
  for (int k = 0; k < nparam; ++k) {
    isl_val* v = isl_point_get_coordinate_val(pt, isl_dim_param, k);
    const char* name = isl_set_get_dim_name(set, isl_dim_param, static_cast<unsigned>(k));
    parts.push_back(std::string(name ? name : "?") + " = " + std::to_string(isl_val_get_num_si(v)));
    isl_val_free(v);
  }
  std::string coords;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    isl_val* v = isl_point_get_coordinate_val(pt, isl_dim_set, static_cast<int>(k));
    coords += std::string(k ? ", " : "") + dims[k] + " = " + std::to_string(isl_val_get_num_si(v));
    isl_val_free(v);
  }
  isl_point_free(pt);
  if (coords.empty()) return join(parts, ", ");
  return coords + (parts.empty() ? "" : " (" + join(parts, ", ") + ")");
}

// An expression with the index names the user sees (i0, i1, ..).
std::string user_text(Ref e) {
  std::string text = sym::debug_string(e);
  for (std::size_t at; (at = text.find("lego_i")) != std::string::npos;) text.replace(at, 6, "i");
  return text;
}

IslVerdict undecided(std::string why) {
  IslVerdict v;
  v.evidence = std::move(why);
  return v;
}

}  // namespace

const char* to_string(IslStatus s) {
  switch (s) {
    case IslStatus::Bijective:
      return "bijective";
    case IslStatus::NotBijective:
      return "not bijective";
    case IslStatus::Undecided:
      break;
  }
  return "undecided";
}

IslVerdict isl_check_layout(const LayoutAst& layout, const Env& env, const std::vector<Expr>& constraints) {
  sym::Pool pool;
  const Derivation d(pool, layout, env, constraints);
  if (!d.has_inverse()) return undecided("apply-only layout (its GenP has no inverse): not a bijection by design");
  if (d.expanded()) return undecided("ExpandBy layouts are partial maps; ISL checks complete layouts");

  const std::size_t rank = d.shape().size();
  std::vector<std::pair<std::string, Ref>> ranges;
  std::vector<Ref> idx;
  std::vector<std::string> names;
  for (std::size_t k = 0; k < rank; ++k) {
    names.push_back(layout_index_name(k));
    ranges.emplace_back(names.back(), d.shape()[k]);
    idx.push_back(pool.var(names.back()));
  }
  const sym::Facts facts = d.facts(ranges);
  sym::Simplifier s(pool, facts);
  const Ref apply = d.apply(idx, s);
  Ref offending = nullptr;
  const auto apply_text = to_isl(apply, &offending);
  if (!apply_text) {
    std::set<std::string> vars;
    sym::collect_vars(offending, vars);
    const bool has_size = std::any_of(vars.begin(), vars.end(), [](const std::string& v) { return v.rfind("lego_i", 0) != 0; });
    return undecided("apply is not quasi-affine (" + user_text(d.present(offending)) + "), outside the Presburger arithmetic ISL decides" +
                     (has_size ? "; bind the sizes it multiplies" : ""));
  }
  const auto size_text = to_isl(d.size());
  if (!size_text) return undecided("the size " + sym::debug_string(d.present(d.size())) + " is not affine in the unbound sizes");

  // The derived inverse, when quasi-affine, gives the cheap proof below.
  sym::Simplifier si(pool, d.facts({{kPosition, d.physical_size()}}));
  const std::vector<Ref> inv = d.inv(pool.var(kPosition), si);
  std::vector<std::string> inv_texts;
  for (Ref e : inv)
    if (auto t = to_isl(e)) inv_texts.push_back(*t);

  std::set<std::string> params;
  sym::collect_vars(apply, params);
  if (inv_texts.size() == inv.size())
    for (Ref e : inv) sym::collect_vars(e, params);
  params.erase(kPosition);
  sym::collect_vars(d.size(), params);
  std::vector<std::string> domain;
  for (std::size_t k = 0; k < rank; ++k) {
    const auto extent = to_isl(d.shape()[k]);
    if (!extent) return undecided("the extent " + sym::debug_string(d.present(d.shape()[k])) + " is not affine in the unbound sizes");
    sym::collect_vars(d.shape()[k], params);
    domain.push_back("0 <= " + names[k] + " <= (" + *extent + ") - 1");
  }
  for (const auto& n : names) params.erase(n);
  const std::string ctx_text = context(params, facts);
  const std::string header = "[" + join({params.begin(), params.end()}, ", ") + "] -> { ";
  const std::string target_text = "0 <= " + std::string(kPosition) + " <= (" + *size_text + ") - 1" + ctx_text;

  IslContext ctx(kLayoutQuestionOperations);
  const std::string a_text = header + "[" + join(names, ", ") + "] -> [" + kPosition + "] : " + kPosition + " = " + *apply_text + " and " +
                             join(domain, " and ") + ctx_text + " }";
  IslMap a(isl_map_read_from_str(ctx.ctx, a_text.c_str()));
  IslSet target(isl_set_read_from_str(ctx.ctx, (header + "[" + kPosition + "] : " + target_text + " }").c_str()));
  if (!a || !target) return undecided("ISL could not read the layout's relation");

  IslVerdict v;
  // Well-formedness first: every OrderBy must have the layout's size.
  for (std::size_t k = 0; k < d.size_differences().size(); ++k) {
    const Ref difference = d.size_differences()[k];
    const auto text = to_isl(difference);
    if (!text) return undecided("needs " + d.assumptions()[k] + ", which is not affine in the unbound sizes");
    std::set<std::string> vars;
    sym::collect_vars(difference, vars);
    params.insert(vars.begin(), vars.end());
    const std::string all_params = "[" + join({params.begin(), params.end()}, ", ") + "] -> { [] : ";
    IslSet violated(isl_set_read_from_str(ctx.ctx, (all_params + "(" + *text + ") != 0" + context(params, facts) + " }").c_str()));
    if (!violated) return undecided("ISL could not read the size condition " + d.assumptions()[k]);
    if (isl_set_is_empty(violated.get()) == isl_bool_false) {
      v.status = IslStatus::NotBijective;
      v.evidence = "an OrderBy's size differs from the layout's: needs " + d.assumptions()[k];
      v.counterexample = sample_text(violated.get(), {});
      return v;
    }
  }
  const std::string size = sym::debug_string(d.present(d.size()));
  const std::set<std::string> user_symbols = free_symbols(layout, env);
  const std::string for_all = user_symbols.empty() ? ""
                                                   : ", for all " + join({user_symbols.begin(), user_symbols.end()}, ", ") + " >= 1" +
                                                         (constraints.empty() ? "" : " under the constraints");

  // With a quasi-affine inverse, one emptiness test: no index whose position
  // falls outside [0, size) or does not map back to it. inv(apply(i)) == i
  // makes apply one-to-one; the box has exactly `size` indices, so it is
  // also onto, and the derived inverse is its inverse.
  bool inverse_refuted = false;
  if (inv_texts.size() == inv.size()) {
    std::vector<std::string> failures = {std::string(kPosition) + " < 0", std::string(kPosition) + " > (" + *size_text + ") - 1"};
    for (std::size_t k = 0; k < rank; ++k) failures.push_back(names[k] + " != " + inv_texts[k]);
    std::vector<std::string> dims = names;
    dims.push_back(kPosition);
    const std::string text = header + "[" + join(dims, ", ") + "] : " + kPosition + " = " + *apply_text + " and " + join(domain, " and ") +
                             ctx_text + " and (" + join(failures, " or ") + ") }";
    IslSet bad(isl_set_read_from_str(ctx.ctx, text.c_str()));
    const isl_bool none = bad ? isl_set_is_empty(bad.get()) : isl_bool_error;
    inverse_refuted = none == isl_bool_false;
    v.inverse_refuted = inverse_refuted;
    if (none == isl_bool_true) {
      v.status = IslStatus::Bijective;
      v.inverse_exact = true;
      v.evidence = "inv(apply(i)) == i and 0 <= apply(i) < " + size + " for every index" + for_all +
                   ", so apply is one-to-one and onto, and the derived inverse is exact";
      return v;
    }
  }

  // Otherwise the relation itself: one-to-one, and its image is [0, size).
  const isl_bool injective = isl_map_is_injective(a.get());
  IslSet image(isl_map_range(isl_map_copy(a.get())));
  const isl_bool onto = injective < 0 ? isl_bool_error : isl_set_is_equal(image.get(), target.get());
  if (injective < 0 || onto < 0)
    return undecided(isl_ctx_last_error(ctx.ctx) == isl_error_quota
                         ? "ISL gave up: the relation's mods need more than " + std::to_string(kLayoutQuestionOperations) + " operations"
                         : "ISL could not decide the layout's relation");
  if (injective && onto) {
    v.status = IslStatus::Bijective;
    v.evidence = "apply is one-to-one and onto [0, " + size + ")" + for_all +
                 (inverse_refuted ? "; but the inverse is NOT its inverse (a user GenP's inverse lambda is wrong; in the library's pieces, "
                                    "a bug: please report the layout)"
                  : inv_texts.size() == inv.size() ? "; ISL could not check the derived inverse"
                                                   : "; the derived inverse is not quasi-affine, so ISL did not check it");
    return v;
  }
  v.status = IslStatus::NotBijective;
  if (!injective) {
    // Pairs of distinct indices with the same position.
    IslMap same(isl_map_apply_range(isl_map_copy(a.get()), isl_map_reverse(isl_map_copy(a.get()))));
    IslMap identity(isl_map_identity(isl_map_get_space(same.get())));
    IslSet pairs(isl_map_wrap(isl_map_subtract(same.release(), identity.release())));
    std::vector<std::string> both = names;
    for (const auto& n : names) both.push_back(n + "'");
    v.evidence = "two indices share a position";
    v.counterexample = sample_text(pairs.get(), both);
    return v;
  }
  IslSet missing(isl_set_subtract(isl_set_copy(target.get()), isl_set_copy(image.get())));
  if (isl_set_is_empty(missing.get()) == isl_bool_false) {
    v.evidence = "a position in [0, " + size + ") is never reached";
    v.counterexample = sample_text(missing.get(), {kPosition});
  } else {
    v.evidence = "apply reaches a position outside [0, " + size + ")";
    IslSet outside(isl_map_wrap(isl_map_subtract_range(isl_map_copy(a.get()), isl_set_copy(target.get()))));
    std::vector<std::string> dims = names;
    dims.push_back(kPosition);
    v.counterexample = sample_text(outside.get(), dims);
  }
  return v;
}

}  // namespace lego::poly
