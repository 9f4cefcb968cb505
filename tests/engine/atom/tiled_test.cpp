// A TiledMMA's picture: the C operand of mma.m16n8k16 over 2 x 2 warps
// and 2 x 4 repeats is a 64 x 64 tile held once per element, each warp in
// its own 32 x 32 block, with the atom's own cells in its corner.
#include "atom/tiled.hpp"

#include <gtest/gtest.h>

#include <set>

#include "expr/diagnostic.hpp"

namespace lego::atom {
namespace {

TEST(Tiled, TheAccumulatorOfTwoByTwoWarpsCoversA64By64TileOnce) {
  const Atom mma = resolve_atom("mma.m16n8k16.f16");
  const TiledTable t = tile_operand(mma, mma.operand("C"), 2, 2, 2, 4);
  ASSERT_EQ(t.rows, 64);
  ASSERT_EQ(t.cols, 64);
  std::set<std::tuple<int, int, int>> holders;
  for (const Holder& h : t.cells) {
    EXPECT_GE(h.warp, 0);
    EXPECT_TRUE(holders.insert({h.warp, h.lane, h.value}).second) << h.warp << " " << h.lane << " " << h.value;
  }
  EXPECT_EQ(holders.size(), 64u * 64u);
  // Warp (wy, wx) = (1, 0) owns rows 32..63 of columns 0..31.
  EXPECT_EQ(t.at(32, 0).warp, 2);
  EXPECT_EQ(t.at(63, 31).warp, 2);
  EXPECT_EQ(t.at(31, 32).warp, 1);
  // The atom's corner is its own table: lane 5 (groupID 1, thread 1) holds (1, 2) and (1, 3) as values 0 and 1.
  EXPECT_EQ(t.at(1, 2).lane, 5);
  EXPECT_EQ(t.at(1, 2).value, 0);
  EXPECT_EQ(t.at(1, 3).value, 1);
  // The next repeat to the right (columns 8..15) is values 4..7 of the same lanes.
  EXPECT_EQ(t.at(1, 10).lane, 5);
  EXPECT_EQ(t.at(1, 10).value, 4);
  const std::vector<Coord> lane5 = t.lane_cells(0, 5);
  ASSERT_EQ(lane5.size(), 4u * 8u);
  EXPECT_EQ(lane5.front(), (Coord{1, 2}));
}

TEST(Tiled, OneWarpAndOneRepeatIsTheAtomsOwnTable) {
  const Atom mma = resolve_atom("mma.m16n8k16.f16");
  const Operand& a = mma.operand("A");
  const TiledTable t = tile_operand(mma, a, 1, 1, 1, 1);
  EXPECT_EQ(t.rows, 16);
  EXPECT_EQ(t.cols, 16);
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < a.tv.values; ++v) {
      const Coord c = a.tv.at(lane, v);
      EXPECT_EQ(t.at(c.row, c.col).lane, lane);
      EXPECT_EQ(t.at(c.row, c.col).value, v);
    }
}

TEST(Tiled, AWgmmaOperandsFourWarpsAreWarpsOfTheirOwn) {
  const Atom wgmma = resolve_atom("wgmma.m64n64k16.f16");
  const TiledTable t = tile_operand(wgmma, wgmma.operand("C"), 1, 1, 1, 1);
  std::set<int> warps;
  for (const Holder& h : t.cells) warps.insert(h.warp);
  EXPECT_EQ(warps, (std::set<int>{0, 1, 2, 3}));
}

TEST(Tiled, BadGridsAndHugeTilesAreClearErrors) {
  const Atom mma = resolve_atom("mma.m16n8k16.f16");
  EXPECT_THROW(tile_operand(mma, mma.operand("C"), 0, 1, 1, 1), LegoError);
  EXPECT_THROW(tile_operand(mma, mma.operand("C"), 64, 64, 16, 16), LegoError);
}

}  // namespace
}  // namespace lego::atom
