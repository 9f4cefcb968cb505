// The simplifier's rewrite rules as a table, in the spirit of Halide's rule
// tables: each rule has a name, the rewrite it performs, the side condition
// the prover must show, and an example (with the variables' ranges) that it
// rewrites and a counter-example range where the condition fails and it
// must not fire. The simplifier tries a node kind's rules in table order
// and counts every rule that fires; `lego expr --explain` prints the steps.
// Adding a rule is a row here, a method in simplify.cpp, and its example
// is tested by tests/engine/sym/simplify_rules_test.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "sym/sym.hpp"

namespace lego::sym {

enum class Rule {
  DivMultiplesOut,
  DivInRange,
  DivConstantOnInterval,
  DivBelowCommonFactor,
  DivOfDiv,
  DivByPolynomial,
  ModMultiplesOut,
  ModInRange,
  ModBelowCommonFactor,
  ModOfMod,
  ModByPolynomial,
  RecombineDivMod,
  RecombineNestedMod,
  MinMaxOrdered,
  CompareDecided,
};
constexpr std::size_t kRuleCount = static_cast<std::size_t>(Rule::CompareDecided) + 1;

struct RuleInfo {
  Rule rule;
  const char* name;       // "div.in_range"
  const char* rewrite;    // "r // d -> 0"
  const char* condition;  // "0 <= r < d", or "" when there is none
  // An expression it rewrites, the ranges that make the condition hold
  // ("i in 0..7; j in 0..3", inclusive), and the result.
  const char* example;
  const char* ranges;
  const char* result;
  // Ranges under which the condition fails for the same expression: the
  // rule must not fire there.
  const char* counter_ranges;
};

const std::array<RuleInfo, kRuleCount>& rule_table();
const RuleInfo& rule_info(Rule rule);

using RuleHits = std::array<int, kRuleCount>;

// One rewrite: the node before and after.
struct RuleStep {
  Rule rule;
  Ref before, after;
};

}  // namespace lego::sym
