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
// - On the closing block, the structural entries: "TileBy level" splits its
//   innermost level in two, "ExpandBy" wraps the layout in (or unwraps it
//   from) an ExpandBy (session/drop_closing).
// plan_drop is the one entry point: every entry over every site gives a
// plan, choices or a refusal that says where the entry goes.
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

// The palette's structural entries: they change the closing block, not an OrderBy.
inline constexpr const char* kTileLevelEntry = "TileBy level";
inline constexpr const char* kExpandEntry = "ExpandBy";
bool is_structural(std::string_view entry);

// Where a drop lands on the composer.
struct DropSite {
  enum Kind { OnPiece, InBlock, NewBlock, Closing, Below };
  Kind kind = NewBlock;
  std::size_t block = 0, position = 0;  // OnPiece: the piece; InBlock: where the new piece goes
};

// Any palette entry over any site. The empty area below everything takes
// an entry where it belongs: a structural one on the closing block, a piece
// as a new OrderBy. A structural entry on an OrderBy, or a piece on the
// closing block, is refused with where it goes.
DropPlan plan_drop(const LayoutAst& layout, const Env& sizes, const DropSite& site, std::string_view entry);

// `entry` is a palette entry ("Row", "antidiag", "swizzle(3,0,3)", "GenP:user", ..).
// A layout that does not check now (an error already, unbound sizes) is not
// protected: the plan is the plain edit, so the user can go on repairing it.
DropPlan plan_replace(const LayoutAst& layout, const Env& sizes, std::size_t block, std::size_t position, std::string_view entry);
DropPlan plan_insert(const LayoutAst& layout, const Env& sizes, std::size_t block, std::size_t position, std::string_view entry);
DropPlan plan_new_block(const LayoutAst& layout, const Env& sizes, std::string_view entry);
// TileBy level: the closing block's innermost level (a GroupBy's one group)
// split in two at the same size, GroupBy([(8,8)]) -> TileBy([2,2],[4,4]),
// the balanced splits first. A level of ones would change nothing visible.
DropPlan plan_tile_level(const LayoutAst& layout, const Env& sizes);
// ExpandBy: the layout wrapped in ExpandBy over its logical extents (a box
// to narrow in the text for partial tiles), or the ExpandBy removed.
DropPlan plan_expand(const LayoutAst& layout, const Env& sizes);

// The closing block as the composer shows it: "TileBy([2,2],[4,4])", and
// " in ExpandBy(.., [8,8])" when the layout has one. Brackets balanced.
std::string closing_text(const LayoutAst& layout);

// At most this many choices are offered, and at most kMaxTries candidates
// checked, so a drop on a 3-D block of large extents stays interactive.
inline constexpr std::size_t kMaxDropChoices = 8;
inline constexpr std::size_t kMaxDropTries = 256;

}  // namespace lego::session
