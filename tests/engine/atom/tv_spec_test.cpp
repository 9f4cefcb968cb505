// Atom(...) in the layout language: an atom's TV layout, and a TiledMMA's,
// as a layout from (thread, value) to the tile's column-major index. The
// tables are checked against the PTX ISA's fragment formulas and against
// tile_operand's cells, not against the code that builds them.
#include "atom/tv_spec.hpp"

#include <gtest/gtest.h>

#include "atom/atoms.hpp"
#include "atom/tiled.hpp"
#include "expr/diagnostic.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::atom {
namespace {

std::vector<std::int64_t> table_of(const std::string& text, std::vector<std::int64_t>* shape = nullptr) {
  const Plan plan = make_plan(parse_layout(text), {});
  std::vector<std::int64_t> t(static_cast<std::size_t>(plan.size()));
  plan.apply_all(t.data());
  if (shape) *shape = plan.shape();
  return t;
}

TEST(AtomPiece, TheMmaAOperandIsThePtxFragmentAndCuTesTvLayout) {
  std::vector<std::int64_t> shape;
  const std::vector<std::int64_t> t = table_of("Atom(mma.m16n8k16.f16:A)", &shape);
  ASSERT_EQ(shape, (std::vector<std::int64_t>{32, 8}));
  // PTX ISA, mma.m16n8k16 .f16 A fragment: a_i of lane l is at row
  // groupID (+8 for i in {2,3,6,7}), col threadID_in_group*2 + (i & 1) (+8 for i >= 4).
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 8; ++i) {
      const int row = lane / 4 + 8 * ((i / 2) % 2), col = (lane % 4) * 2 + (i & 1) + 8 * (i / 4);
      EXPECT_EQ(t[static_cast<std::size_t>(lane * 8 + i)], row + 16 * col) << "lane " << lane << " value " << i;
    }
  // CuTe's SM80_16x8x16_F32F16F16F32_TN A layout, the same table.
  EXPECT_EQ(t, table_of("CuTe(((4,8),(2,2,2)):((32,1),(16,8,128)))"));
}

TEST(AtomPiece, ATiledMmaNumbersThreadsByWarpAndValuesByRepeat) {
  std::vector<std::int64_t> shape;
  const std::vector<std::int64_t> t = table_of("Atom(mma.m16n8k16.f16:C, [2,2], [2,4])", &shape);
  ASSERT_EQ(shape, (std::vector<std::int64_t>{128, 32}));  // 4 warps x 32 lanes, 4 values x 8 repeats
  const Atom mma = resolve_atom("mma.m16n8k16.f16");
  const TiledTable tiled = tile_operand(mma, mma.operand("C"), 2, 2, 2, 4);
  ASSERT_EQ(tiled.rows, 64);
  for (int r = 0; r < tiled.rows; ++r)
    for (int c = 0; c < tiled.cols; ++c) {
      const Holder& h = tiled.at(r, c);
      EXPECT_EQ(t[static_cast<std::size_t>((h.warp * 32 + h.lane) * 32 + h.value)], r + 64 * c) << r << "," << c;
    }
  // The command line's 2x2 names the same layout.
  const TvLayout cli = tv_of(parse_tv_spec("mma.m16n8k16.f16:C, 2x2, 2x4"));
  EXPECT_EQ(cli.cells, tv_of(parse_tv_spec("mma.m16n8k16.f16:C,[2,2],[2,4]")).cells);
}

TEST(AtomPiece, PrintsBackAsWrittenInsideALargerLayout) {
  const std::string tiled = "OrderBy(Atom(mma.m16n8k16.f16:C, [2,2])).GroupBy([(128,4)])";
  EXPECT_EQ(print(parse_layout(tiled)), tiled);
  // On its own it is grouped by its (threads, values) modes, as CuTe(...) is.
  EXPECT_EQ(print(parse_layout("Atom(ldmatrix.x4:D)")), "OrderBy(Atom(ldmatrix.x4:D)).GroupBy([(32,8)])");
}

TEST(AtomPiece, BadNamesAndGridsPointIntoTheAtomsText) {
  const auto column_of = [](const std::string& text) {
    try {
      parse_layout(text);
    } catch (const LegoError& e) {
      return static_cast<int>(e.diagnostic().span.begin) + 1;
    }
    return 0;
  };
  EXPECT_EQ(column_of("Atom(mma.m16n8k99:A)"), 6);
  EXPECT_EQ(column_of("Atom(mma.m16n8k16.f16:X)"), 23);
  EXPECT_EQ(column_of("Atom(mma.m16n8k16.f16:A, [2,y])"), 26);
  EXPECT_EQ(column_of("Atom(mma.m16n8k16.f16:A, [2,2], [1,1], [1,1])"), 40);
  EXPECT_EQ(column_of("Atom(mma.m16n8k16.f16)"), 6);
  // Brackets that never close or close nothing (a crash and a silently dropped grid, once).
  EXPECT_EQ(column_of("Atom([)"), 6);
  EXPECT_EQ(column_of("Atom(mma.m16n8k16.f16:A])"), 24);
  EXPECT_EQ(column_of("Atom(mma.m16n8k16.f16:C, [2,2)"), 26);
  EXPECT_THROW(parse_tv_spec("mma.m16n8k16.f16:C, 2x2, [1,2"), LegoError);
  // The command line's 2x2 is named for what it is inside the language.
  try {
    parse_layout("Atom(mma.m16n8k16.f16:C, 2x2)");
    ADD_FAILURE() << "2x2 parsed";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("[2,2]"), std::string::npos) << e.what();
  }
  // Spaces around the colon; a one-thread copy has no warp grid; a CTA holds 32 warps.
  EXPECT_EQ(tv_of(parse_tv_spec(" mma.m16n8k16.f16 : c ")).cells, tv_of(parse_tv_spec("mma.m16n8k16.f16:C")).cells);
  EXPECT_EQ(column_of("Atom(cp.async.16:D, [4,8])"), 21);
  EXPECT_EQ(column_of("Atom(mma.m16n8k16.f16:C, [8,8])"), 26);
  EXPECT_THROW(parse_tv_spec("mma.m16n8k16.f16:A, 0x2"), LegoError);
  EXPECT_THROW(parse_tv_spec("mma.m16n8k16.f16:A, 65x1"), LegoError);
}

}  // namespace
}  // namespace lego::atom
