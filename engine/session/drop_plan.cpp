#include "session/drop_plan.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "expr/diagnostic.hpp"
#include "layout/bound.hpp"
#include "layout/edit.hpp"
#include "session/drop_plan_parts.hpp"
#include "session/layout_snapshot.hpp"

namespace lego::session {

namespace parts {

std::string why_invalid(const LayoutAst& layout, const Env& sizes) {
  try {
    validate_structure(layout);
    check_layout(layout, sizes);
    return {};
  } catch (const LegoError& e) {
    return e.diagnostic().message;
  }
}

std::optional<std::vector<std::int64_t>> values_of(const std::vector<Expr>& dims, const Env& sizes) {
  std::vector<std::int64_t> out;
  try {
    for (const Expr& d : dims) out.push_back(evaluate(d, sizes));
  } catch (const LegoError&) {
    return std::nullopt;
  }
  if (std::any_of(out.begin(), out.end(), [](std::int64_t v) { return v < 1; })) return std::nullopt;
  return out;
}

std::vector<Expr> constants(const std::vector<std::int64_t>& values) {
  std::vector<Expr> out;
  for (std::int64_t v : values) out.push_back(constant(v));
  return out;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      out.push_back(d);
      if (d != n / d) out.push_back(n / d);
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::int64_t element_count(const std::vector<std::int64_t>& extents) {
  std::int64_t n = 1;
  for (std::int64_t e : extents) n *= e;
  return n;
}

std::vector<std::vector<std::int64_t>> balanced_splits(const std::vector<std::int64_t>& values) {
  std::vector<std::vector<std::int64_t>> splits{{}};
  for (std::int64_t e : values) {
    std::vector<std::vector<std::int64_t>> longer;
    for (const auto& s : splits)
      for (std::int64_t d : divisors(e)) {
        longer.push_back(s);
        longer.back().push_back(d);
      }
    splits = std::move(longer);
    if (splits.size() > 4096) break;  // large 3-D extents: the balanced ones are tried first anyway
  }
  const std::int64_t whole = element_count(values);
  std::erase_if(splits, [&](const std::vector<std::int64_t>& s) {
    const std::int64_t part = element_count(s);
    return s.size() != values.size() || part == 1 || part == whole;
  });
  const auto imbalance = [&](const std::vector<std::int64_t>& s) {
    double sum = 0;
    for (std::size_t k = 0; k < s.size(); ++k) sum += std::abs(std::log2(double(s[k])) - std::log2(double(values[k] / s[k])));
    const bool square = std::adjacent_find(s.begin(), s.end(), std::not_equal_to<>()) == s.end();
    return sum + (square ? 0.0 : 0.5);
  };
  std::stable_sort(splits.begin(), splits.end(), [&](const auto& a, const auto& b) {
    const double ia = imbalance(a), ib = imbalance(b);
    return ia != ib ? ia < ib : element_count(a) > element_count(b);
  });
  return splits;
}

Expr divided(const Expr& extent, std::int64_t part) {
  if (part == 1) return extent;
  return is_const(extent) ? constant(extent->value / part) : make(Op::FloorDiv, {extent, constant(part)});
}

void Collector::offer(const std::string& label, const std::function<LayoutAst()>& make) {
  if (plan.choices.size() >= kMaxDropChoices || tries >= kMaxDropTries) return;
  ++tries;
  std::string why;
  LayoutAst result;
  try {
    result = make();
    why = why_invalid(result, sizes);
  } catch (const LegoError& e) {
    why = e.diagnostic().message;
  }
  if (why.empty())
    plan.choices.push_back({label, std::move(result)});
  else if (first_refusal.empty())
    first_refusal = why;
}

DropPlan Collector::done() {
  if (plan.choices.empty()) plan.refusal = first_refusal.empty() ? "no shape of this size suits the piece" : first_refusal;
  return std::move(plan);
}

std::optional<DropPlan> unprotected(const LayoutAst& layout, const Env& sizes, const std::string& action,
                                    const std::function<LayoutAst()>& make) {
  if (why_invalid(layout, sizes).empty()) return std::nullopt;
  DropPlan plan{action, {}, {}};
  try {
    plan.choices.push_back({action, make()});
  } catch (const LegoError& e) {
    plan.refusal = e.diagnostic().message;
  }
  return plan;
}

}  // namespace parts

namespace {

using namespace parts;

std::string block_text(const LayoutAst& layout, std::size_t block) {
  std::string text;
  for (const Piece& p : layout.chain.at(block).pieces) text += (text.empty() ? "" : ", ") + print(p);
  return text;
}

// Shapes of `size` elements a piece may need instead of `extents`: the
// square, then the other 2-D shapes nearest to square.
std::vector<std::vector<std::int64_t>> other_shapes(const std::vector<std::int64_t>& extents) {
  const std::int64_t size = element_count(extents);
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t r : divisors(size))
    if (r * r <= size && (r > 1 || size == 1)) out.push_back({r, size / r});
  std::reverse(out.begin(), out.end());  // nearest to square first
  out.erase(std::remove(out.begin(), out.end(), extents), out.end());
  return out;
}

// When the piece at `extents` did not check: the first other shape of the
// same size that does (the one meant; a menu of shapes would only confuse).
void offer_first_other_shape(Collector& c, const std::optional<std::vector<std::int64_t>>& extents, std::string_view entry,
                             const std::function<LayoutAst(const Piece&)>& place) {
  if (!c.plan.choices.empty() || !extents) return;
  for (const auto& shape : other_shapes(*extents)) {
    const Piece piece = piece_of_entry(constants(shape), entry);
    c.offer(print(piece), [&] { return place(piece); });
    if (!c.plan.choices.empty()) return;
  }
}

}  // namespace

DropPlan plan_replace(const LayoutAst& layout, const Env& sizes, std::size_t block, std::size_t position, std::string_view entry) {
  const Piece& old = layout.chain.at(block).pieces.at(position);
  const std::string action = "replace " + print(old) + " with " + std::string(entry);
  const auto at_extents = [&] { return replace_piece(layout, block, position, piece_of_entry(old.dims, entry)); };
  if (auto plan = unprotected(layout, sizes, action, at_extents)) return *plan;
  Collector c(sizes, action);
  c.offer(print(piece_of_entry(old.dims, entry)), at_extents);
  offer_first_other_shape(c, values_of(old.dims, sizes), entry,
                          [&](const Piece& piece) { return replace_piece(layout, block, position, piece); });
  return c.done();
}

DropPlan plan_insert(const LayoutAst& layout, const Env& sizes, std::size_t block, std::size_t position, std::string_view entry) {
  const auto& pieces = layout.chain.at(block).pieces;
  const std::string action = "insert " + std::string(entry) + " as a new level of OrderBy " + std::to_string(block) + ", keeping its size";
  if (auto plan =
          unprotected(layout, sizes, action, [&] { return insert_piece(layout, block, position, default_piece(layout, block, entry)); }))
    return *plan;
  Collector c(sizes, action);
  // The neighbour that gives up extents: the piece left of the drop (the
  // new piece becomes its inner tiles), else the one right of it (the new
  // piece becomes the outer level).
  std::vector<std::size_t> neighbours;
  if (position > 0) neighbours.push_back(position - 1);
  if (position < pieces.size()) neighbours.push_back(position);
  for (std::size_t n : neighbours) {
    const Piece& neighbour = pieces[n];
    const auto values = values_of(neighbour.dims, sizes);
    if (!values) continue;
    // The new piece neither trivial nor the whole, most natural first.
    for (const auto& s : balanced_splits(*values)) {
      std::vector<Expr> kept;
      for (std::size_t k = 0; k < s.size(); ++k) kept.push_back(divided(neighbour.dims[k], s[k]));
      Piece smaller = neighbour;
      smaller.dims = kept;
      const Piece added = piece_of_entry(constants(s), entry);
      const std::size_t at = n < position ? position : n;  // the new piece goes where it was dropped
      const auto make_result = [&] { return insert_piece(replace_piece(layout, block, n, parse_piece(print(smaller))), block, at, added); };
      std::string label;
      try {
        const LayoutAst result = make_result();
        label = block_text(result, block);
      } catch (const LegoError&) {
        label = print(added);
      }
      c.offer(label, make_result);
    }
  }
  if (neighbours.empty() || c.tries == 0) c.first_refusal = "the neighbouring pieces' extents cannot be split at these sizes";
  return c.done();
}

DropPlan plan_new_block(const LayoutAst& layout, const Env& sizes, std::string_view entry) {
  const std::size_t end = layout.chain.size();
  const std::string action = "add a new OrderBy of " + std::string(entry) + " over the logical shape";
  const auto plain = [&] { return insert_block(layout, end, default_piece(layout, end, entry)); };
  if (auto plan = unprotected(layout, sizes, action, plain)) return *plan;
  Collector c(sizes, action);
  c.offer(print(default_piece(layout, end, entry)), plain);
  offer_first_other_shape(c, values_of(logical_extents(layout), sizes), entry,
                          [&](const Piece& piece) { return insert_block(layout, end, piece); });
  return c.done();
}

}  // namespace lego::session
