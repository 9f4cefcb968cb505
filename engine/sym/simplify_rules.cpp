#include "sym/simplify_rules.hpp"

namespace lego::sym {

const std::array<RuleInfo, kRuleCount>& rule_table() {
  static const std::array<RuleInfo, kRuleCount> table = {{
      {Rule::DivMultiplesOut, "div.multiples_out", "(d*q + r) // d -> q + r // d", "d > 0", "(d*i + j) // d",
       "d in 1..8; i in 0..15; j in 0..(d - 1)", "i", "d in -4..-1; i in 0..3; j in 0..3"},
      {Rule::DivInRange, "div.in_range", "r // d -> 0", "0 <= r < d", "j // 8", "j in 0..7", "0", "j in 0..8"},
      {Rule::DivConstantOnInterval, "div.constant_on_interval", "r // c -> k", "k*c <= r < (k+1)*c", "j // 8", "j in 16..23", "2",
       "j in 16..24"},
      {Rule::DivBelowCommonFactor, "div.below_common_factor", "(g*y + r) // (g*m) -> y // m", "0 <= r < g", "(4*i + j) // 8",
       "i in 0..15; j in 0..3", "i//2", "i in 0..15; j in 0..4"},
      {Rule::DivOfDiv, "div.of_div", "(x // a) // d -> x // (a*d)", "a > 0, d > 0", "(x // 4) // 8", "x in -100..100", "x//32", ""},
      {Rule::DivByPolynomial, "div.by_polynomial", "a // d -> q when a = d*q + r", "d a sum, 0 <= r < d", "(T*i + i + j) // (T + 1)",
       "T in 1..64; i in 0..7; j in 0..T", "i", "T in 1..64; i in 0..7; j in 0..(T + 1)"},
      {Rule::ModMultiplesOut, "mod.multiples_out", "(d*q + r) % d -> r % d", "d > 0", "(8*i + j) % 8", "i in 0..15; j in 0..15", "j % 8",
       ""},
      {Rule::ModInRange, "mod.in_range", "r % d -> r", "0 <= r < d", "j % 8", "j in 0..7", "j", "j in 0..8"},
      {Rule::ModBelowCommonFactor, "mod.below_common_factor", "(g*y + r) % (g*m) -> g*(y % m) + r", "0 <= r < g", "(4*i + j) % 8",
       "i in 0..15; j in 0..3", "j + 4*(i % 2)", "i in 0..15; j in 0..4"},
      {Rule::ModOfMod, "mod.of_mod", "(x % (d*k)) % d -> x % d", "d > 0, d*k > 0", "(x % 32) % 8", "x in -100..100", "x % 8", ""},
      {Rule::ModByPolynomial, "mod.by_polynomial", "a % d -> a - d*q when a // d folds to q", "d a sum, 0 <= r < d",
       "(T*i + i + j) % (T + 1)", "T in 1..64; i in 0..7; j in 0..T", "j", "T in 1..64; i in 0..7; j in 0..(T + 1)"},
      {Rule::RecombineDivMod, "recombine.div_mod", "a*(x // a) + x % a -> x", "a > 0", "8*(x // 8) + x % 8", "x in -100..100", "x", ""},
      {Rule::RecombineNestedMod, "recombine.nested_mod", "a*((x // a) % b) + x % a -> x % (a*b)", "a > 0, b > 0",
       "4*((x // 4) % 8) + x % 4", "x in -100..100", "x % 32", ""},
      {Rule::MinMaxOrdered, "minmax.ordered", "min(a, b) -> a, max(a, b) -> b", "a <= b", "min(i, 8)", "i in 0..7", "i", "i in 0..9"},
      {Rule::CompareDecided, "compare.decided", "a < b -> 1 or 0 (and <=, ==, !=)", "a < b or b <= a proved", "i < 8", "i in 0..7", "1",
       "i in 0..8"},
  }};
  return table;
}

const RuleInfo& rule_info(Rule rule) { return rule_table()[static_cast<std::size_t>(rule)]; }

}  // namespace lego::sym
