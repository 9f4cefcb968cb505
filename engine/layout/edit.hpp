// Structural edits of a layout, as the composition editor makes them: add,
// remove, move and replace pieces, add a TileBy level, wrap in ExpandBy.
// Each returns a new layout (value semantics, so undo keeps the old one) and
// throws LegoError for an edit that has no meaning (a position that does not
// exist, removing the last OrderBy). The result may still be an invalid
// layout (extents that no longer multiply out); the caller shows that
// diagnostic at the piece, as it would for typed text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "layout/ast.hpp"

namespace lego {

// A palette entry: "Row", "Col", "RegP", a GenP library name ("antidiag",
// "swizzle(3,0,3)", ..) or "GenP:user".
// piece_of_entry gives it the extents `dims`.
Piece piece_of_entry(std::vector<Expr> dims, std::string_view entry);
// Its extents copy the block's first piece, or the logical shape for a new
// block, so a drop starts from a layout of the same size.
Piece default_piece(const LayoutAst& layout, std::size_t block, std::string_view entry);
// The palette entry at the extents of piece `position` of OrderBy `block`,
// so that replacing that piece keeps the layout's size.
Piece default_piece_at(const LayoutAst& layout, std::size_t block, std::size_t position, std::string_view entry);

// block == layout.chain.size() appends a new OrderBy (closest to the logical
// index); a block index < 0 is not representable, so "new block in front"
// is insert_block(layout, 0, piece).
LayoutAst insert_piece(const LayoutAst& layout, std::size_t block, std::size_t position, const Piece& piece);
LayoutAst insert_block(const LayoutAst& layout, std::size_t block, const Piece& piece);
LayoutAst remove_piece(const LayoutAst& layout, std::size_t block, std::size_t position);
LayoutAst move_piece(const LayoutAst& layout, std::size_t from_block, std::size_t from_position, std::size_t to_block,
                     std::size_t to_position);
// Parses `text` as one piece ("Row(4, 8)"); errors point into `text`.
Piece parse_piece(std::string_view text);
LayoutAst replace_piece(const LayoutAst& layout, std::size_t block, std::size_t position, const Piece& piece);

// GroupBy with one group becomes TileBy(group, [1..]); TileBy gets a level
// of ones, innermost. Extents are then edited in place.
LayoutAst add_tile_level(const LayoutAst& layout);
// ExpandBy over the layout's untiled extents (a no-op box to narrow), or
// removes the ExpandBy.
LayoutAst toggle_expand(const LayoutAst& layout);

// The logical shape as written (TileBy: per dimension, the product of the
// levels' extents; GroupBy: every group's extents, one after another).
std::vector<Expr> logical_extents(const LayoutAst& layout);

}  // namespace lego
