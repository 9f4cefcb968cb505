// Every row of the simplifier's rule table: its example rewrites to the
// stated result and counts a hit for that rule, the result equals the input
// at every point of the ranges, and under the counter-example ranges (where
// the side condition fails) the rule does not fire and the result is still
// equal. Also: the table is complete, ordered and uniquely named, and the
// recorded steps name the rules in the order they applied.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <sstream>

#include "expr/parser.hpp"
#include "sym/simplify.hpp"

namespace lego::sym {
namespace {

struct Range {
  std::string name;
  Ref lo, hi;
};

// "i in 0..15; j in 0..(d - 1)": inclusive bounds, which may name earlier
// variables (those become parameters: symbols that bound themselves).
std::vector<Range> parse_ranges(Pool& pool, const std::string& text) {
  std::vector<Range> ranges;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ';');) {
    const std::size_t at = part.find(" in "), dots = part.find("..");
    if (at == std::string::npos || dots == std::string::npos) throw std::runtime_error("bad range: " + part);
    std::string name = part.substr(0, at);
    name.erase(0, name.find_first_not_of(' '));
    ranges.push_back({name, pool.from_expr(parse_expression(part.substr(at + 4, dots - at - 4))),
                      pool.from_expr(parse_expression(part.substr(dots + 2)))});
  }
  return ranges;
}

Facts facts_of(const std::vector<Range>& ranges) {
  Facts facts;
  std::set<std::string> in_bounds;
  for (const auto& r : ranges) {
    collect_vars(r.lo, in_bounds);
    collect_vars(r.hi, in_bounds);
  }
  for (const auto& r : ranges) {
    facts.ranges[r.name] = {r.lo, r.hi};
    facts.is_parameter[r.name] = in_bounds.count(r.name) > 0;
  }
  return facts;
}

// Calls `visit` at every point of the ranges (in order: a bound may use
// the variables before it).
void for_each_point(const std::vector<Range>& ranges, const std::function<void(const Values&)>& visit) {
  Values values;
  std::function<void(std::size_t)> walk = [&](std::size_t k) {
    if (k == ranges.size()) return visit(values);
    const std::int64_t lo = evaluate(ranges[k].lo, values), hi = evaluate(ranges[k].hi, values);
    for (std::int64_t v = lo; v <= hi; ++v) {
      values[ranges[k].name] = v;
      walk(k + 1);
    }
    values.erase(ranges[k].name);
  };
  walk(0);
}

struct Outcome {
  Ref input, result;
  int hits = 0;
};

Outcome simplify_under(Pool& pool, const RuleInfo& row, const std::vector<Range>& ranges) {
  Simplifier s(pool, facts_of(ranges));
  Outcome o;
  o.input = pool.from_expr(parse_expression(row.example));
  o.result = s.simplify(o.input);
  o.hits = s.hits()[static_cast<std::size_t>(row.rule)];
  return o;
}

void expect_equal_everywhere(const Outcome& o, const std::vector<Range>& ranges) {
  int points = 0;
  for_each_point(ranges, [&](const Values& v) {
    ++points;
    ASSERT_EQ(evaluate(o.input, v), evaluate(o.result, v)) << debug_string(o.input) << " -> " << debug_string(o.result);
  });
  EXPECT_GT(points, 0);
}

class RuleRow : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RuleRow, ExampleRewritesAndCounterExampleDoesNot) {
  const RuleInfo& row = rule_table()[GetParam()];
  SCOPED_TRACE(row.name);
  Pool pool;
  const auto ranges = parse_ranges(pool, row.ranges);
  const Outcome o = simplify_under(pool, row, ranges);
  EXPECT_EQ(debug_string(o.result), row.result);
  EXPECT_GT(o.hits, 0) << row.name << " did not fire on " << row.example;
  expect_equal_everywhere(o, ranges);
  if (*row.counter_ranges) {
    const auto counter = parse_ranges(pool, row.counter_ranges);
    const Outcome c = simplify_under(pool, row, counter);
    EXPECT_EQ(c.hits, 0) << row.name << " fired where " << row.condition << " fails: " << debug_string(c.result);
    expect_equal_everywhere(c, counter);
  }
}

INSTANTIATE_TEST_SUITE_P(SimplifierRules, RuleRow, ::testing::Range<std::size_t>(0, kRuleCount),
                         [](const ::testing::TestParamInfo<std::size_t>& row) {
                           std::string name = rule_table()[row.param].name;
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

TEST(SimplifierRules, TableIsInEnumOrderWithUniqueNames) {
  std::set<std::string> names;
  for (std::size_t k = 0; k < kRuleCount; ++k) {
    EXPECT_EQ(static_cast<std::size_t>(rule_table()[k].rule), k);
    EXPECT_TRUE(names.insert(rule_table()[k].name).second) << rule_table()[k].name;
    EXPECT_EQ(&rule_info(rule_table()[k].rule), &rule_table()[k]);
  }
}

TEST(SimplifierRules, StepsNameTheRulesOuterFirst) {
  Pool pool;
  const auto ranges = parse_ranges(pool, "i in 0..15; j in 0..7");
  Simplifier s(pool, facts_of(ranges));
  std::vector<RuleStep> steps;
  s.record(&steps);
  const Ref r = s.simplify(pool.from_expr(parse_expression("(8*i + j) // 8 + (8*i + j) % 8")));
  EXPECT_EQ(debug_string(r), "i + j");
  std::vector<std::string> fired;
  for (const auto& step : steps) fired.push_back(rule_info(step.rule).name);
  const std::vector<std::string> expected = {"div.multiples_out", "div.in_range", "mod.multiples_out", "mod.in_range"};
  EXPECT_EQ(fired, expected);
  EXPECT_EQ(s.hits()[static_cast<std::size_t>(Rule::DivMultiplesOut)], 1);
}

}  // namespace
}  // namespace lego::sym
