// Composition edits: each gives the layout the editor shows, its text
// parses back to it, and meaningless edits are refused with a message.
#include "layout/edit.hpp"

#include <gtest/gtest.h>

#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/verify.hpp"

namespace lego {
namespace {

std::string text(const LayoutAst& a) { return print(a); }

TEST(LayoutEdit, DefaultPiecesKeepTheSizeSoTheLayoutStaysValid) {
  const LayoutAst base = parse_layout("OrderBy(Row(4,6)).GroupBy([(4,6)])");
  for (const char* entry : {"Row", "Col", "RegP", "reverse", "skew", "GenP:user"}) {
    const LayoutAst edited = insert_block(base, 0, default_piece(base, 0, entry));
    ASSERT_EQ(edited.chain.size(), 2u) << entry;
    const Plan plan = make_plan(edited, {});
    const BijectivityReport r = check_bijective(plan);
    EXPECT_TRUE(r.checked && r.bijective) << entry << ": " << text(edited) << ": " << r.evidence;
  }
  EXPECT_EQ(text(insert_block(base, 0, default_piece(base, 0, "Col"))), "OrderBy(Col(4,6)).OrderBy(Row(4,6)).GroupBy([(4,6)])");
}

TEST(LayoutEdit, InsertRemoveMoveAndReplace) {
  const LayoutAst base = parse_layout("OrderBy(Row(2,2),Row(3,3)).TileBy([2,2],[3,3])");
  const LayoutAst swapped = move_piece(base, 0, 0, 0, 2);
  EXPECT_EQ(text(swapped), "OrderBy(Row(3,3), Row(2,2)).TileBy([2,2],[3,3])");
  const LayoutAst replaced = replace_piece(base, 0, 1, parse_piece("Col(3, 3)"));
  EXPECT_EQ(text(replaced), "OrderBy(Row(2,2), Col(3,3)).TileBy([2,2],[3,3])");
  const LayoutAst removed = remove_piece(replaced, 0, 1);
  EXPECT_EQ(text(removed), "OrderBy(Row(2,2)).TileBy([2,2],[3,3])");
  // A new block after the last one; moving its only piece away removes it.
  const LayoutAst two = insert_piece(base, 1, 0, parse_piece("Col(6,6)"));
  EXPECT_EQ(two.chain.size(), 2u);
  EXPECT_EQ(move_piece(two, 1, 0, 0, 0).chain.size(), 1u);
  EXPECT_THROW(remove_piece(parse_layout("OrderBy(Row(4)).GroupBy([(4)])"), 0, 0), LegoError);
  EXPECT_THROW(remove_piece(base, 3, 0), LegoError);
  EXPECT_THROW(replace_piece(base, 0, 5, parse_piece("Row(1)")), LegoError);
}

TEST(LayoutEdit, PieceTextErrorsPointIntoThePieceText) {
  try {
    parse_piece("Row(4, 4");
    FAIL() << "accepted";
  } catch (const LegoError& e) {
    ASSERT_TRUE(e.diagnostic().span.known());
    EXPECT_LE(e.diagnostic().span.begin, 8u);
  }
}

TEST(LayoutEdit, TileLevelsAndExpandBy) {
  const LayoutAst base = parse_layout("OrderBy(Row(4,4)).GroupBy([(4,4)])");
  const LayoutAst tiled = add_tile_level(base);
  EXPECT_EQ(text(tiled), "OrderBy(Row(4,4)).TileBy([4,4],[1,1])");
  EXPECT_NO_THROW(make_plan(tiled, {}));
  const LayoutAst expanded = toggle_expand(tiled);
  EXPECT_EQ(text(expanded), "ExpandBy(OrderBy(Row(4,4)).TileBy([4,4],[1,1]), [4,4])");
  EXPECT_NO_THROW(make_plan(expanded, {}));
  EXPECT_TRUE(equal(toggle_expand(expanded), tiled));
}

}  // namespace
}  // namespace lego
