// What the engine thread hands the views: the cells and their physical
// positions both ways, each cell's tile, where a thread walk puts a
// position, and errors located in the user's text. The views draw these and
// compute none of them.
#include "session/layout_snapshot.hpp"

#include <gtest/gtest.h>

namespace lego::session {
namespace {

TEST(LayoutSnapshot, InverseUndoesApplyAndTilesAreNumberedRowMajor) {
  // 4x4 tiles of 2x2, tiles row-major, each tile column-major.
  const LayoutSnapshot s = build_snapshot(1, "OrderBy(Row(2, 2), Col(2, 2)).TileBy([2, 2], [2, 2])", "");
  ASSERT_TRUE(s.ok) << s.error;
  ASSERT_EQ(s.shape, (std::vector<std::int64_t>{4, 4}));
  ASSERT_EQ(s.inverse.size(), 16u);
  for (std::size_t k = 0; k < s.apply.size(); ++k) EXPECT_EQ(s.inverse[static_cast<std::size_t>(s.apply[k])], static_cast<std::int64_t>(k));
  EXPECT_EQ(s.apply[1], 2);  // (0, 1): column-major inside its tile
  ASSERT_EQ(s.tile.size(), 16u);
  EXPECT_EQ(s.tile[0], 0);   // (0, 0)
  EXPECT_EQ(s.tile[3], 1);   // (0, 3)
  EXPECT_EQ(s.tile[8], 2);   // (2, 0)
  EXPECT_EQ(s.tile[15], 3);  // (3, 3)
}

TEST(LayoutSnapshot, UntiledLayoutsHaveNoTiles) {
  const LayoutSnapshot s = build_snapshot(1, "OrderBy(Row(3, 5)).GroupBy([(3, 5)])", "");
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_TRUE(s.tile.empty());
  EXPECT_EQ(s.inverse[7], 7);
}

TEST(LayoutSnapshot, PlacementOfAThreadWalk) {
  const Placement p = place(100, 64);
  EXPECT_EQ(p.thread, 36);
  EXPECT_EQ(p.step, 1);
  EXPECT_EQ(p.warp, 1);
  EXPECT_EQ(p.lane, 4);
  EXPECT_EQ(p.bank, 4);
  EXPECT_EQ(place(5, 0).thread, 0);  // no threads counts as one
  EXPECT_EQ(warp_count(32), 1);
  EXPECT_EQ(warp_count(33), 2);
  EXPECT_EQ(warp_count(0), 1);
}

TEST(LayoutSnapshot, ErrorsNameTheirPlaceAndNeverThrow) {
  const LayoutSnapshot bad = build_snapshot(2, "OrderBy(Row(4, 4).GroupBy([(4, 4)])", "");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("1:18"), std::string::npos) << bad.error;  // line:column of the '.'
  EXPECT_EQ(bad.error_begin, 17u);
  const LayoutSnapshot unbound = build_snapshot(3, "OrderBy(Row(n, n)).GroupBy([(n, n)])", "");
  EXPECT_FALSE(unbound.ok);
  EXPECT_EQ(unbound.unbound, (std::vector<std::string>{"n"}));
  const LayoutSnapshot bound = build_snapshot(4, "OrderBy(Row(n, n)).GroupBy([(n, n)])", "n=3");
  EXPECT_TRUE(bound.ok) << bound.error;
  EXPECT_EQ(bound.generation, 4u);
}

// A layout too large to draw still gets its check and its expressions.
TEST(LayoutSnapshot, ATensorTooLargeToDrawKeepsItsCheckAndExpressions) {
  const LayoutSnapshot s = build_snapshot(1, "OrderBy(Row(1024, 1024)).GroupBy([(1024, 1024)])", "");
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_NE(s.not_drawn.find("1048576 cells"), std::string::npos) << s.not_drawn;
  EXPECT_TRUE(s.apply.empty());
  EXPECT_TRUE(s.shape.empty());
  EXPECT_NE(s.verdict.find("bijective"), std::string::npos) << s.verdict;
  EXPECT_NE(s.apply_code.find("1024"), std::string::npos) << s.apply_code;
  EXPECT_FALSE(s.inv_code.empty());
}

// The expressions panel lists how the simplifier got there, rule by rule,
// with the fact each rule needed (the lines of lego expr --explain).
TEST(LayoutSnapshot, TheRewriteChainNamesEachRuleAndWhatItProved) {
  const LayoutSnapshot s = build_snapshot(1, "OrderBy(Row(4, 4), Col(2, 2)).TileBy([4, 4], [2, 2])", "");
  ASSERT_TRUE(s.ok) << s.error;
  ASSERT_FALSE(s.inv_rewrites.empty());
  bool proved = false;
  for (const auto& line : s.inv_rewrites) {
    EXPECT_NE(line.find("  ->  "), std::string::npos) << line;
    proved |= line.find("   [") != std::string::npos;
  }
  EXPECT_TRUE(proved) << "no rewrite names the side condition it proved";
  const LayoutSnapshot plain = build_snapshot(2, "OrderBy(Row(3, 5)).GroupBy([(3, 5)])", "");
  EXPECT_TRUE(plain.apply_rewrites.empty());  // nothing to simplify in i0 * 5 + i1
}

}  // namespace
}  // namespace lego::session
