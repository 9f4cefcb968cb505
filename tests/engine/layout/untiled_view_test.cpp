#include "layout/untiled_view.hpp"

#include <gtest/gtest.h>

#include "expr/diagnostic.hpp"
#include "layout/derive.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego {
namespace {

// The tensor view of a TileBy layout at (i, j) equals the layout at the tile
// coordinates of (i, j), for every element.
TEST(UntiledView, UntiledIndexReachesTheSameElementAsTileCoordinates) {
  const Env env{{"N", 12}, {"T", 4}};
  for (const char* text : {"OrderBy(Row(N//T,N//T), Col(T,T)).TileBy([N//T,N//T],[T,T])",
                           "OrderBy(Col(N//T,N//T), Row(T,T)).OrderBy(Row(N//T,N//T), Row(T,T)).TileBy([N//T,N//T],[T,T])",
                           "OrderBy(Row(N//T,N//T), GenP([T,T], antidiag)).TileBy([N//T,N//T],[T,T])"}) {
    const LayoutAst tiled = parse_layout(text);
    const Plan by_tiles = make_plan(tiled, env);
    const Plan by_element = make_plan(untiled_view(tiled, 2), env);
    ASSERT_EQ(by_element.rank(), 2) << text;
    for (std::int64_t i = 0; i < 12; ++i)
      for (std::int64_t j = 0; j < 12; ++j) {
        const std::int64_t tile[4] = {i / 4, j / 4, i % 4, j % 4}, elem[2] = {i, j};
        ASSERT_EQ(by_element.apply(elem), by_tiles.apply(tile)) << text << " at " << i << "," << j;
      }
  }
}

// A brick's index: the coordinates' low parts cannot carry into the brick
// number, so (256*j + k) // 2048 folds to j // 8 and only per-coordinate
// divisions by the brick edge remain (the simplifier's split rule).
TEST(UntiledView, BricksIndexDividesEachCoordinateByTheBrickEdgeOnly) {
  const LayoutAst bricks = parse_layout("OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3,[B]*3)");
  DeriveRequest request;
  request.indices = {"i", "j", "k"};
  const DeriveResult r = derive(untiled_view(bricks, 3), {{"N", 256}, {"B", 8}}, request);
  ASSERT_EQ(r.exprs.size(), 1u);
  EXPECT_EQ(r.exprs[0], "524288*(i / 8) + 16384*(j / 8) + 512*(k / 8) + 64*(i % 8) + 8*(j % 8) + k % 8");
}

TEST(UntiledView, LayoutsOfTheTensorsRankAreUnchanged) {
  const LayoutAst l = parse_layout("OrderBy(Col(N,N)).GroupBy([(N,N)])");
  EXPECT_TRUE(equal(untiled_view(l, 2), l));
  const LayoutAst one_level = parse_layout("OrderBy(Row(N,N)).TileBy([N,N])");
  EXPECT_TRUE(equal(untiled_view(one_level, 2), one_level));
}

TEST(UntiledView, ARankMismatchIsAnErrorAtTheLayout) {
  const LayoutAst l = parse_layout("OrderBy(Row(N,N,N)).GroupBy([(N,N,N)])");
  try {
    untiled_view(l, 2);
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("3 logical dimensions but the tensor has 2"), std::string::npos);
  }
}

}  // namespace
}  // namespace lego
