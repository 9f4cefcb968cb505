// The paper's cases as golden tests: op counts at or below their bounds, and
// the printed (Python) expressions, evaluated at concrete sizes, equal the
// numeric layout at every index.
#include "engine/layout/paper_cases.hpp"

#include <gtest/gtest.h>

#include "expr/compiled.hpp"
#include "expr/parser.hpp"
#include "layout/derive.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/shape.hpp"

namespace lego {
namespace {

std::vector<Expr> constraints_of(const char* where) {
  std::vector<Expr> out;
  std::string text(where);
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    if (end > start) out.push_back(parse_expression(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

TEST(PaperCases, OpCountsAtOrBelowTheirBoundsAndValuesExact) {
  for (const auto& c : testing::paper_cases()) {
    SCOPED_TRACE(c.name);
    const LayoutAst ast = parse_layout(c.layout);
    DeriveRequest request{c.inverse, c.indices, constraints_of(c.where), sym::Lang::Python, {}, {}, {}, false};
    const DeriveResult result = derive(ast, {}, request);  // every size symbolic
    EXPECT_LE(result.ops, c.max_ops) << result.exprs[0];
    // With its constraints stated, no size equality is left to assume.
    if (*c.where) {
      EXPECT_EQ(result.assumptions, std::vector<std::string>{});
    }

    const Plan plan = make_plan(ast, c.check_sizes);
    std::vector<std::string> vars = c.indices;
    std::vector<std::int64_t> values(vars.size(), 0);
    for (const auto& [name, v] : c.check_sizes) {
      vars.push_back(name);
      values.push_back(v);
    }
    std::vector<CompiledExpr> exprs;
    for (const auto& e : result.exprs) exprs.emplace_back(parse_expression(e), vars);
    if (c.inverse) {
      for (std::int64_t x = 0; x < plan.physical_size(); ++x) {
        values[0] = x;
        const Shape want = plan.inv_checked(x);
        for (std::size_t k = 0; k < exprs.size(); ++k) ASSERT_EQ(exprs[k](values.data()), want[k]) << "x=" << x << " " << result.exprs[k];
      }
    } else {
      Shape i(plan.shape().size(), 0);
      do {
        std::copy(i.begin(), i.end(), values.begin());
        ASSERT_EQ(exprs[0](values.data()), plan.apply(i.data())) << index_text(i) << " " << result.exprs[0];
      } while (next_index(i, plan.shape()));
    }
  }
}

}  // namespace
}  // namespace lego
