#include "layout/compile.hpp"

#include "layout/verify.hpp"

namespace lego {

Plan compile(const LayoutAst& layout, const Env& env) {
  BoundLayout bound = bind(layout, env);
  validate_user_genps(bound);
  return Plan(std::move(bound));
}

}  // namespace lego
