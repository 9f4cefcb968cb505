// What dropping a palette piece on the composer does, decided before the
// drop lands so the composer can preview it, offer the choices and refuse
// with a reason. Every choice is a layout that session::check_layout accepts
// at the given sizes; a drop never produces an invalid layout.
//
// - On a piece: the new piece replaces it at its extents, or, for a GenP
//   that needs another shape (antidiag wants a square), at a shape of the
//   same size that the piece allows (RegP([2,3,2,3],..) -> GenP([6,6], ..)).
// - Between pieces or on a block: the new piece becomes a new level of the
//   block by splitting a neighbour's extents (Row(8,8) -> Row(2,2) then
//   GenP([4,4], antidiag): 2x2 tiles of 4x4), so the block keeps its size.
//   The choices are the factorizations, most natural (balanced) first.
// - Below the blocks: a new OrderBy over the logical shape.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.hpp"
#include "layout/ast.hpp"

namespace lego::session {

struct DropChoice {
  std::string label;  // the block after the drop, e.g. "Row(2, 2), GenP([4, 4], antidiag)", and what it means
  LayoutAst result;
};

struct DropPlan {
  std::string action;               // "replace Row(8, 8) with antidiag", for the preview
  std::vector<DropChoice> choices;  // the most natural first; empty: refused
  std::string refusal;              // why, when there is no choice
  bool refused() const { return choices.empty(); }
};

// `entry` is a palette entry ("Row", "antidiag", "swizzle(3,0,3)", "GenP:user", ..).
// A layout that does not check now (an error already, unbound sizes) is not
// protected: the plan is the plain edit, so the user can go on repairing it.
DropPlan plan_replace(const LayoutAst& layout, const Env& sizes, std::size_t block, std::size_t position, std::string_view entry);
DropPlan plan_insert(const LayoutAst& layout, const Env& sizes, std::size_t block, std::size_t position, std::string_view entry);
DropPlan plan_new_block(const LayoutAst& layout, const Env& sizes, std::string_view entry);

// At most this many choices are offered, and at most kMaxTries candidates
// checked, so a drop on a 3-D block of large extents stays interactive.
inline constexpr std::size_t kMaxDropChoices = 8;
inline constexpr std::size_t kMaxDropTries = 256;

}  // namespace lego::session
