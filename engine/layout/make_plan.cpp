#include "layout/make_plan.hpp"

#include "layout/verify.hpp"

namespace lego {

Plan make_plan(const LayoutAst& layout, const Env& env) {
  BoundLayout bound = bind(layout, env);
  // The plan's limit, checked here where the layout's text is at hand.
  if (static_cast<int>(bound.shape.size()) > kMaxLayoutRank)
    throw LegoError(layout.closing_span, "this layout has " + std::to_string(bound.shape.size()) + " logical dimensions; at most " +
                                             std::to_string(kMaxLayoutRank) + " are supported");
  validate_user_genps(bound);
  return Plan(std::move(bound));
}

}  // namespace lego
