// CuTe layouts in and out: every layout below goes through from-cute into
// the layout language, and the table of the result is compared, offset by
// offset, with a table computed here from CuTe's definition (top-level
// modes are the logical dimensions; a nested mode's coordinate splits
// colexicographically; the offset is the sum of leaf coordinates times
// strides, then the swizzle). Affine ones come back from to-cute as written
// when written in CuTe's coalesced form (no two leaves of a mode that run on).
#include "layout/cute.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "expr/diagnostic.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::cute {
namespace {

// CuTe's definition, written out on its own for the test: shape and stride
// per leaf with the top-level mode each belongs to.
struct Mode {
  std::vector<std::int64_t> sizes, strides;
};
std::vector<std::int64_t> cute_table(const std::vector<Mode>& modes, int b = -1, int m = 0, int s = 0) {
  std::vector<std::int64_t> extents;
  std::int64_t n = 1;
  for (const Mode& mode : modes) {
    std::int64_t e = 1;
    for (auto v : mode.sizes) e *= v;
    extents.push_back(e);
    n *= e;
  }
  std::vector<std::int64_t> table;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rest = i, x = 0;
    std::vector<std::int64_t> coord(modes.size());
    for (std::size_t k = modes.size(); k-- > 0;) coord[k] = rest % extents[k], rest /= extents[k];  // row-major over the modes
    for (std::size_t k = 0; k < modes.size(); ++k) {
      std::int64_t c = coord[k];
      for (std::size_t l = 0; l < modes[k].sizes.size(); ++l) {  // colexicographic: the first leaf fastest
        x += (c % modes[k].sizes[l]) * modes[k].strides[l];
        c /= modes[k].sizes[l];
      }
    }
    if (b >= 0) {  // CuTe's Swizzle<B,M,S>: x ^ shiftr(x & (bits << (M + max(0, S))), S)
      const std::int64_t bits = (std::int64_t{1} << b) - 1;
      x ^= s >= 0 ? (x >> s) & (bits << m) : (x & (bits << m)) << -s;
    }
    table.push_back(x);
  }
  return table;
}

std::vector<std::int64_t> lego_table(const std::string& text) {
  const Plan plan = make_plan(parse_layout(text), {});
  std::vector<std::int64_t> t(static_cast<std::size_t>(plan.size()));
  plan.apply_all(t.data());
  return t;
}

struct Case {
  std::string cute;
  std::vector<Mode> modes;
  int b = -1, m = 0, s = 0;
};

// Layouts of CuTe's layout tutorial and its GPU sections, and the shapes users write.
const std::vector<Case> kCases = {
    {"8:1", {{{8}, {1}}}},
    {"(4,2):(1,4)", {{{4}, {1}}, {{2}, {4}}}},
    {"(4,2):(2,1)", {{{4}, {2}}, {{2}, {1}}}},
    {"(4,8):(8,1)", {{{4}, {8}}, {{8}, {1}}}},
    {"(2,(2,2)):(4,(2,1))", {{{2}, {4}}, {{2, 2}, {2, 1}}}},
    {"((2,2),2):((4,1),2)", {{{2, 2}, {4, 1}}, {{2}, {2}}}},
    {"((2,4),(2,2)):((1,8),(2,4))", {{{2, 4}, {1, 8}}, {{2, 2}, {2, 4}}}},
    {"(2,(1,6)):(1,(6,2))", {{{2}, {1}}, {{1, 6}, {6, 2}}}},
    {"((4,2),(2,4)):((2,8),(1,16))", {{{4, 2}, {2, 8}}, {{2, 4}, {1, 16}}}},
    {"Sw<3,4,3> o (8,64):(64,1)", {{{8}, {64}}, {{64}, {1}}}, 3, 4, 3},
    {"Swizzle<2,0,3> o (8,8):(8,1)", {{{8}, {8}}, {{8}, {1}}}, 2, 0, 3},
    {"Sw<3,0,3> o (8,8):(8,1)", {{{8}, {8}}, {{8}, {1}}}, 3, 0, 3},
    {"Sw<3,4,-3> o (16,64):(64,1)", {{{16}, {64}}, {{64}, {1}}}, 3, 4, -3},
};

// Issue 29, failure 10: a negative S was applied as (x << |S|) & mask
// (offset 16 where CuTe gives 144), and Sw<3,0,2>, which CuTe refuses
// (|S| < B), was accepted with a wrong inverse.
TEST(Cute, ANegativeShiftIsCutesAndOverlappingBitsAreRefused) {
  EXPECT_EQ(offset(parse("Sw<3,4,-3> o 1024:1"), {16}), 144);
  EXPECT_THROW(parse("Sw<3,0,2> o (8,8):(8,1)"), LegoError);
  try {
    parse("Sw<3,0,2> o (8,8):(8,1)");
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("|S| >= B"), std::string::npos) << e.what();
  }
}

TEST(Cute, FromCuteMatchesCutesOwnTableAtEveryCoordinate) {
  for (const Case& c : kCases) {
    const std::string lego = to_lego(parse(c.cute));
    EXPECT_EQ(lego_table(lego), cute_table(c.modes, c.b, c.m, c.s)) << c.cute << " -> " << lego;
  }
}

TEST(Cute, CompactLayoutsBecomeDigitPermutationsAndPaddingKeepsItsFootprint) {
  EXPECT_EQ(to_lego(parse("(4,8):(8,1)")), "OrderBy(Row(4,8)).GroupBy([(4, 8)])");
  EXPECT_EQ(to_lego(parse("(4,8):(1,4)")), "OrderBy(Col(4,8)).GroupBy([(4, 8)])");
  EXPECT_NE(to_lego(parse("((2,4),(2,2)):((1,8),(2,4))")).find("RegP("), std::string::npos);
  // Padding: injective, not onto; the layout holds exactly CuTe's offsets
  // and needs its footprint of memory.
  const Plan padded = make_plan(parse_layout(to_lego(parse("(32,32):(33,1)"))), {});
  EXPECT_FALSE(padded.has_inverse());
  EXPECT_EQ(padded.physical_size(), 1055);
  EXPECT_EQ(lego_table(to_lego(parse("(32,32):(33,1)"))), cute_table({{{32}, {33}}, {{32}, {1}}}));
  EXPECT_EQ(lego_table(to_lego(parse("(8,(2,4)):(40,(1,8))"))), cute_table({{{8}, {40}}, {{2, 4}, {1, 8}}}));
}

TEST(Cute, BroadcastsAndOverlapsNameTheCollidingCoordinates) {
  try {
    to_lego(parse("(4,2):(0,1)"));
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("coordinates (0, 0) and (1, 0) both map to offset 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(to_lego(parse("(2,2):(1,1)")), LegoError);
  for (const char* bad : {"(4,8):(8)", "(4,8)", "Sw<3,4> o 8:1", "(4,8):(8,1) x", "((((((((((((((((((1))))))))))))))))):1"})
    EXPECT_THROW(parse(bad), LegoError) << bad;
  try {
    parse("(4,8):(8,x)");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("column 10"), std::string::npos) << e.what();
  }
}

TEST(Cute, AffineLayoutsRoundTrip) {
  for (const char* text : {"8:1", "(4,2):(1,4)", "(4,8):(8,1)", "(2,(2,2)):(4,(2,1))", "((2,2),2):((4,1),2)", "((2,4),8):((1,16),2)"}) {
    const std::string lego = to_lego(parse(text));
    const Plan plan = make_plan(parse_layout(lego), {});
    std::vector<std::int64_t> t(static_cast<std::size_t>(plan.size()));
    plan.apply_all(t.data());
    const std::optional<Layout> back = from_table(plan.shape(), t);
    ASSERT_TRUE(back) << text;
    EXPECT_EQ(to_string(*back), text);
  }
  EXPECT_FALSE(from_table({8, 8}, lego_table("OrderBy(GenP([8, 8], antidiag)).TileBy([8, 8])")));
}

// The GPU sections' swizzled tiles both ways: LEGO's swizzle(3,0,3) on an
// 8 x 8 tile is CuTe's Sw<3,0,3> o (8,8):(8,1), offset for offset.
TEST(Cute, SwizzledTilesAgreeBothWays) {
  EXPECT_EQ(lego_table("OrderBy(GenP([8,8], swizzle(3,0,3))).GroupBy([(8,8)])"), cute_table({{{8}, {8}}, {{8}, {1}}}, 3, 0, 3));
  EXPECT_EQ(lego_table(to_lego(parse("Sw<3,0,3> o (8,8):(8,1)"))), lego_table("OrderBy(GenP([8,8], swizzle(3,0,3))).GroupBy([(8,8)])"));
}

// CuTe's notation inline in the layout language: a whole layout, or a piece
// composed with others; printed back as written; errors point into it.
TEST(Cute, InlinePiecesHoldCutesOffsetsAndPrintAsWritten) {
  for (const Case& c : kCases) {
    const std::string text = "CuTe(" + c.cute + ")";
    const LayoutAst ast = parse_layout(text);
    EXPECT_EQ(lego_table(text), cute_table(c.modes, c.b, c.m, c.s)) << text;
    EXPECT_EQ(print(ast).rfind("OrderBy(" + text + ").GroupBy([(", 0), 0u) << print(ast);
    EXPECT_TRUE(equal(parse_layout(print(ast)), ast)) << text;
  }
  // Composed: a 2 x 2 grid of CuTe's swizzled 8 x 8 tiles is LEGO's own swizzle tile, tile for tile.
  EXPECT_EQ(lego_table("OrderBy(Row(2,2), CuTe(Sw<3,0,3> o (8,8):(8,1))).TileBy([2,2],[8,8])"),
            lego_table("OrderBy(Row(2,2), GenP([8,8], swizzle(3,0,3))).TileBy([2,2],[8,8])"));
  // Padding keeps its footprint.
  EXPECT_EQ(make_plan(parse_layout("CuTe((32,32):(33,1))"), {}).physical_size(), 1055);
  try {
    parse_layout("OrderBy(Row(2), CuTe((4,8):(8,x))).TileBy([2],[4,8])");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_EQ(e.diagnostic().span.begin, 30u) << e.what();  // the 'x'
    EXPECT_NE(std::string(e.what()).find("CuTe layout: expected a number"), std::string::npos) << e.what();
  }
  try {
    parse_layout("CuTe((4,2):(0,1))");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_EQ(e.diagnostic().span.begin, 0u);
    EXPECT_NE(std::string(e.what()).find("(0, 0) and (1, 0) both map to offset 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lego::cute
