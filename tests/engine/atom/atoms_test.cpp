// The atoms' thread-value tables against definitions written independently
// of them: CuTe's TV layouts of the SM80 MMA atoms (mma_traits_sm80.hpp,
// as the issue quotes them), and the PTX ISA's statements about single
// lanes. Every table covers its tile exactly once, and round-trips through
// its CuTe form.
#include "atom/atoms.hpp"

#include <gtest/gtest.h>

#include "expr/diagnostic.hpp"

namespace lego::atom {
namespace {

// The table a CuTe TV layout gives over an M x K (A, C) or N x K (B) tile.
// `transposed`: CuTe's tile is the transpose of PTX's orientation (B).
TvLayout cute_table(const std::string& text, int rows, int cols, bool transposed = false) {
  if (!transposed) return from_cute(cute::parse(text), rows, cols);
  TvLayout t = from_cute(cute::parse(text), cols, rows);
  for (Coord& c : t.cells) c = Coord{c.col, c.row};
  std::swap(t.rows, t.cols);
  return t;
}

void expect_same(const TvLayout& got, const TvLayout& want, const std::string& what) {
  ASSERT_EQ(got.threads, want.threads) << what;
  ASSERT_EQ(got.values, want.values) << what;
  ASSERT_EQ(got.rows, want.rows) << what;
  ASSERT_EQ(got.cols, want.cols) << what;
  for (int t = 0; t < got.threads; ++t)
    for (int v = 0; v < got.values; ++v) ASSERT_EQ(got.at(t, v), want.at(t, v)) << what << ": thread " << t << " value " << v;
}

struct CuteCase {
  std::string atom, operand, cute;
  int rows, cols;  // PTX's orientation
  bool transposed;
};

class CuteTv : public ::testing::TestWithParam<CuteCase> {};

TEST_P(CuteTv, TheTableIsCuteTvLayout) {
  const CuteCase& c = GetParam();
  const Atom a = resolve_atom(c.atom);
  expect_same(a.operand(c.operand).tv, cute_table(c.cute, c.rows, c.cols, c.transposed), c.atom + ":" + c.operand);
}

// CuTe's SM80 atoms: SM80_16x8x16_F32F16F16F32_TN (and BF16), 16x8x8 TF32,
// 16x8x32 S8, 8x8x4 F64.
INSTANTIATE_TEST_SUITE_P(Sm80, CuteTv,
                         ::testing::Values(CuteCase{"mma.m16n8k16.f16", "A", "((4,8),(2,2,2)):((32,1),(16,8,128))", 16, 16, false},
                                           CuteCase{"mma.m16n8k16.f16", "B", "((4,8),(2,2)):((16,1),(8,64))", 16, 8, true},
                                           CuteCase{"mma.m16n8k16.f16", "C", "((4,8),(2,2)):((32,1),(16,8))", 16, 8, false},
                                           CuteCase{"mma.m16n8k16.bf16", "A", "((4,8),(2,2,2)):((32,1),(16,8,128))", 16, 16, false},
                                           CuteCase{"mma.m16n8k8.tf32", "A", "((4,8),(2,2)):((16,1),(8,64))", 16, 8, false},
                                           CuteCase{"mma.m16n8k8.tf32", "B", "((4,8),2):((8,1),32)", 8, 8, true},
                                           CuteCase{"mma.m16n8k32.s8", "A", "((4,8),(4,2,2)):((64,1),(16,8,256))", 16, 32, false},
                                           CuteCase{"mma.m16n8k32.s8", "B", "((4,8),(4,2)):((32,1),(8,128))", 32, 8, true},
                                           CuteCase{"mma.m16n8k32.s8", "C", "((4,8),(2,2)):((32,1),(16,8))", 16, 8, false},
                                           CuteCase{"mma.m8n8k4.f64", "A", "((4,8),1):((8,1),0)", 8, 4, false},
                                           CuteCase{"mma.m8n8k4.f64", "B", "((4,8),1):((8,1),0)", 4, 8, true},
                                           CuteCase{"mma.m8n8k4.f64", "C", "((4,8),2):((16,1),8)", 8, 8, false}),
                         [](const auto& param_info) {
                           std::string name = param_info.param.atom + "_" + param_info.param.operand;
                           for (char& ch : name)
                             if (ch == '.') ch = '_';
                           return name;
                         });

// The two CuTe strings come back out of to_cute.
TEST(Atoms, Sm80FragmentsPrintAsCute) {
  const Atom mma = resolve_atom("mma.m16n8k16.f16");
  EXPECT_EQ(cute::to_string(*to_cute(mma.operand("A").tv)), "((4,8),(2,2,2)):((32,1),(16,8,128))");
  EXPECT_EQ(cute::to_string(*to_cute(mma.operand("C").tv)), "((4,8),(2,2)):((32,1),(16,8))");
}

TEST(Atoms, EveryOperandCoversItsTileOnceAndRoundTripsThroughCute) {
  std::vector<std::string> names = atom_names();
  names.back() = "wgmma.m64n64k16.f16";  // the listed family, at one N
  names.push_back("wgmma.m64n256k16.f16");
  for (const std::string& name : names) {
    const Atom a = resolve_atom(name);
    EXPECT_EQ(a.name, name);
    EXPECT_FALSE(a.operands.empty()) << name;
    for (const Operand& o : a.operands) {
      EXPECT_TRUE(o.tv.covers_tile_once()) << name << ":" << o.name;
      EXPECT_EQ(o.tv.rows * o.tv.cols, o.tv.threads * o.tv.values) << name << ":" << o.name;
      const std::optional<cute::Layout> cute = to_cute(o.tv);
      ASSERT_TRUE(cute) << name << ":" << o.name << " has no CuTe form";
      expect_same(from_cute(cute::parse(cute::to_string(*cute)), o.tv.rows, o.tv.cols), o.tv, name + ":" + o.name);
    }
  }
}

// PTX ISA, "Matrix fragments for ldmatrix": each lane holds two neighbours
// of one row of each matrix: lane 0 row 0 columns 0 and 1, lane 1 columns
// 2 and 3, lane 4 row 1; with .trans, the same of the transposed matrix.
TEST(Atoms, LdmatrixLanesHoldRowNeighbours) {
  const TvLayout x4 = resolve_atom("ldmatrix.x4").operand("D").tv;  // a copy: the atom is a temporary
  EXPECT_EQ(x4.rows, 32);
  EXPECT_EQ(x4.cols, 8);
  EXPECT_EQ(x4.values, 8);
  EXPECT_EQ(x4.at(0, 0), (Coord{0, 0}));
  EXPECT_EQ(x4.at(0, 1), (Coord{0, 1}));
  EXPECT_EQ(x4.at(1, 0), (Coord{0, 2}));
  EXPECT_EQ(x4.at(4, 0), (Coord{1, 0}));
  EXPECT_EQ(x4.at(0, 2), (Coord{8, 0}));    // register 1: matrix 1
  EXPECT_EQ(x4.at(31, 7), (Coord{31, 7}));  // register 3's second element
  const TvLayout trans = resolve_atom("ldmatrix.x4.trans").operand("D").tv;
  EXPECT_EQ(trans.at(1, 0), (Coord{2, 0}));
  EXPECT_EQ(trans.at(4, 1), (Coord{1, 1}));
  expect_same(resolve_atom("stmatrix.x4").operand("D").tv, x4, "stmatrix.x4 is ldmatrix.x4's fragment");
  EXPECT_EQ(resolve_atom("ldmatrix.x1").operand("D").tv.rows, 8);
}

// PTX ISA, wgmma's f32 accumulator: warp w of the warpgroup owns rows
// 16w .. 16w + 15, each an m16n8 accumulator per 8 columns.
TEST(Atoms, WgmmaAccumulatorIsFourWarpsOfM16n8Accumulators) {
  const TvLayout c = resolve_atom("wgmma.m64n32k16.f16").operand("C").tv;
  EXPECT_EQ(c.threads, 128);
  EXPECT_EQ(c.values, 16);
  const TvLayout m16n8 = resolve_atom("mma.m16n8k16.f16").operand("C").tv;
  for (int warp = 0; warp < 4; ++warp)
    for (int lane = 0; lane < 32; ++lane)
      for (int block = 0; block < 4; ++block)
        for (int v = 0; v < 4; ++v) {
          const Coord small = m16n8.at(lane, v);
          EXPECT_EQ(c.at(32 * warp + lane, 4 * block + v), (Coord{16 * warp + small.row, 8 * block + small.col}));
        }
}

TEST(Atoms, CpAsyncIsOneThreadsBytes) {
  const TvLayout t = resolve_atom("cp.async.16").operand("D").tv;
  EXPECT_EQ(t.threads, 1);
  EXPECT_EQ(t.values, 16);
  EXPECT_EQ(t.at(0, 15), (Coord{0, 15}));
}

TEST(Atoms, UnknownNamesAndOperandsAreErrorsThatList) {
  EXPECT_FALSE(find_atom("mma.m16n8k16.f32"));
  EXPECT_FALSE(find_atom("wgmma.m64n12k16.f16"));  // not a multiple of 8
  EXPECT_FALSE(find_atom("wgmma.m64n264k16.f16"));
  EXPECT_FALSE(find_atom("wgmma.m64nk16.f16"));
  try {
    resolve_atom("ldmatrix.x3");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("ldmatrix.x4.trans"), std::string::npos) << e.what();
  }
  try {
    resolve_atom("mma.m16n8k16.f16").operand("D");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("A, B, C"), std::string::npos) << e.what();
  }
}

TEST(TvLayouts, FromCuteRefusesOneModeAndCellsOutsideTheTile) {
  EXPECT_THROW(from_cute(cute::parse("(4,8,2):(1,4,32)"), 8, 8), LegoError);  // three modes, not (threads, values)
  EXPECT_THROW(from_cute(cute::parse("((4,8),2):((1,4),64)"), 4, 8), LegoError);
  EXPECT_NO_THROW(from_cute(cute::parse("((4,8),2):((1,4),32)"), 8, 8));
  // Tiles no TV layout describes: empty, negative, or beyond 2^20 elements (rows x cols overflowed an int).
  EXPECT_THROW(from_cute(cute::parse("(1,1):(0,0)"), 65536, 65536), LegoError);
  EXPECT_THROW(from_cute(cute::parse("(2,2):(1,2)"), 2147483647, 2), LegoError);
  EXPECT_THROW(from_cute(cute::parse("(2,2):(1,2)"), -2, 2), LegoError);
  EXPECT_FALSE((TvLayout{65536, 65536, 1, 1, {{0, 0}}}.covers_tile_once()));
}

}  // namespace
}  // namespace lego::atom
