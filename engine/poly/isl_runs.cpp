#include "poly/isl_runs.hpp"

#include "layout/symbolic.hpp"
#include "poly/isl_context.hpp"
#include "poly/isl_prover.hpp"
#include "poly/isl_questions.hpp"

namespace lego::poly {

namespace {

const char* const kNext = "lego_next";  // the index after lego_i<dimension>

RunProof nothing_proved(std::string why) { return {1, std::move(why)}; }

}  // namespace

RunProof prove_runs(const LayoutAst& layout, const Env& env, std::size_t dimension, std::int64_t max_run) {
  sym::Pool pool;
  const Derivation d(pool, layout, env, {});
  const std::size_t rank = d.shape().size();
  if (dimension >= rank) return nothing_proved("the layout has " + std::to_string(rank) + " indices");
  std::vector<std::int64_t> extents;
  for (sym::Ref e : d.shape()) {
    if (!sym::is_const(e)) return nothing_proved("an extent is not bound to a number");
    extents.push_back(e->value);
  }

  std::vector<std::pair<std::string, sym::Ref>> ranges;
  std::vector<sym::Ref> here, next;
  std::vector<std::string> names;
  for (std::size_t k = 0; k < rank; ++k) {
    names.push_back(layout_index_name(k));
    ranges.emplace_back(names.back(), d.shape()[k]);
    here.push_back(pool.var(names.back()));
  }
  ranges.emplace_back(kNext, d.shape()[dimension]);
  next = here;
  next[dimension] = pool.var(kNext);
  sym::Simplifier s(pool, d.facts(ranges));
  const auto apply_here = to_isl(d.apply(here, s));
  const auto apply_next = to_isl(d.apply(next, s));
  if (!apply_here || !apply_next) return nothing_proved("apply is not quasi-affine, outside what ISL decides");

  std::string domain;
  for (std::size_t k = 0; k < rank; ++k) domain += "0 <= " + names[k] + " < " + std::to_string(extents[k]) + " and ";
  const std::string& k = names[dimension];
  IslContext ctx(kLayoutQuestionOperations);
  std::int64_t longest = 1;
  while (longest * 2 <= max_run && extents[dimension] % (longest * 2) == 0) longest *= 2;
  for (std::int64_t run = longest; run > 1; run /= 2) {
    // Empty exactly when no index inside a run has a successor that is
    // not the next position.
    const std::string text = "{ [" + join(names, ", ") + ", " + kNext + "] : " + domain + kNext + " = " + k + " + 1 and (" + k + " mod " +
                             std::to_string(run) + ") <= " + std::to_string(run - 2) + " and " + *apply_next + " != " + *apply_here +
                             " + 1 }";
    IslSet broken(isl_set_read_from_str(ctx.ctx, text.c_str()));
    if (broken && isl_set_is_empty(broken.get()) == isl_bool_true)
      return {run, "ISL proved every aligned run of " + std::to_string(run) + " along index " + std::to_string(dimension) +
                       " consecutive in memory"};
  }
  return nothing_proved("ISL found no run of 2 or more along index " + std::to_string(dimension) + " that is consecutive in memory");
}

}  // namespace lego::poly
