// What the drop planners share (session/drop_plan for pieces,
// session/drop_closing for the closing block): the check every choice
// passes, sizes evaluated, the balanced splits of extents, and the
// collector that keeps the choices that check within the budget.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "session/drop_plan.hpp"

namespace lego::session::parts {

// Empty when the layout is one the engine draws at these sizes, else why not.
std::string why_invalid(const LayoutAst& layout, const Env& sizes);

// The extents' values at `sizes`; nullopt when one is unbound or < 1.
std::optional<std::vector<std::int64_t>> values_of(const std::vector<Expr>& dims, const Env& sizes);
std::vector<Expr> constants(const std::vector<std::int64_t>& values);
std::vector<std::int64_t> divisors(std::int64_t n);
std::int64_t element_count(const std::vector<std::int64_t>& extents);

// Every split of `values` into kept x part (part_k divides values_k), the
// part neither all ones nor the whole, most natural first: the part as
// balanced against what is kept as it can be, dimension by dimension, then
// square parts; on a tie the larger part (the pattern the user dropped).
std::vector<std::vector<std::int64_t>> balanced_splits(const std::vector<std::int64_t>& values);
// `extent` with a factor `part` taken out: 8 -> 4 for part 2, N -> N//2.
Expr divided(const Expr& extent, std::int64_t part);

// Tries candidates in order, keeping those that check, until enough are
// found or the budget is spent. The first refusal is kept as the reason.
struct Collector {
  Collector(const Env& checked_at, std::string action) : sizes(checked_at) { plan.action = std::move(action); }
  const Env& sizes;
  DropPlan plan;
  std::size_t tries = 0;
  std::string first_refusal;

  void offer(const std::string& label, const std::function<LayoutAst()>& make);
  DropPlan done();
};

// A plan for a layout that does not check now: the plain edit, unprotected,
// so the user can go on repairing it. nullopt when the layout checks.
std::optional<DropPlan> unprotected(const LayoutAst& layout, const Env& sizes, const std::string& action,
                                    const std::function<LayoutAst()>& make);

}  // namespace lego::session::parts
