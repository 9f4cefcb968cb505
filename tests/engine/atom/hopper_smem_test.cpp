// Hopper's swizzle modes as shared layouts: each mode's K-major tile puts
// 16-byte chunk c of row r at chunk c XOR (the row's bits), as CuTe's
// GMMA::Layout_K_SW*_Atom do; ldmatrix.x4 over a tile whose rows are the
// span is conflict-free with the mode's swizzle and 8-, 4- or 2-way without
// it; the descriptor's fields are CUTLASS's (SW128 K-major: SBO 1024 B,
// LBO unused); a TMA box with the 128-byte swizzle is the GEMM example's
// Sw<3,3,3> tile.
#include "atom/hopper_smem.hpp"

#include <gtest/gtest.h>

#include "analysis/atom_walks.hpp"
#include "atom/atoms.hpp"
#include "expr/diagnostic.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::atom {
namespace {

Plan plan_of(const std::string& text) { return make_plan(parse_layout(text), {}); }

int ldmatrix_ways(const std::string& layout) {
  return analysis::atom_walk(plan_of(layout), 2, resolve_atom("ldmatrix.x4")).report.max_ways;
}

TEST(HopperSmem, EachModeSwizzlesSixteenByteChunksByTheRow) {
  for (const SwizzleMode mode : {SwizzleMode::Bytes32, SwizzleMode::Bytes64, SwizzleMode::Bytes128}) {
    const int w = span_bytes(mode) / 2, chunks = w / 8;
    const SharedTile t = k_major_tile(mode, 2, 16, 2 * w);
    const Plan p = plan_of(t.lego);
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 2 * w; ++c) {
        // Within an atom of 8 rows x w: chunk c / 8 XOR the row's bits above the span (CuTe's Swizzle<B, 3, 3>).
        const int row_bits = ((r % 8) * w >> 6) & (chunks - 1);
        const std::int64_t want = std::int64_t{c / w} * 16 * w + (r / 8) * 8 * w + (r % 8) * w + ((c % w / 8) ^ row_bits) * 8 + c % 8;
        ASSERT_EQ(p.apply_checked({r, c}), want) << to_string(mode) << " (" << r << ", " << c << ")";
      }
  }
}

TEST(HopperSmem, LdmatrixIsConflictFreeOnEachModesSpanAndConflictedWithout) {
  const struct {
    SwizzleMode mode;
    int cols, row_major_ways;
  } cases[] = {{SwizzleMode::Bytes128, 64, 8}, {SwizzleMode::Bytes64, 32, 4}, {SwizzleMode::Bytes32, 16, 2}};
  for (const auto& c : cases) {
    EXPECT_EQ(ldmatrix_ways(k_major_tile(c.mode, 2, 64, c.cols).lego), 1) << to_string(c.mode);
    EXPECT_EQ(ldmatrix_ways("CuTe((64," + std::to_string(c.cols) + "):(" + std::to_string(c.cols) + ",1))"), c.row_major_ways)
        << to_string(c.mode);
  }
  // Interleaved core matrices (no swizzle) are conflict-free too: each 8 x 16-byte matrix is 128 contiguous bytes.
  EXPECT_EQ(ldmatrix_ways(k_major_tile(SwizzleMode::None, 2, 64, 16).lego), 1);
}

TEST(HopperSmem, TheDescriptorFieldsAreCutlassesForKMajorTiles) {
  const SharedTile sw128 = k_major_tile(SwizzleMode::Bytes128, 2, 64, 64);
  EXPECT_EQ(sw128.stride_byte_offset, 1024);
  EXPECT_EQ(sw128.descriptor_mode, 1);
  const std::uint64_t d = wgmma_descriptor(sw128, 0x4400);
  EXPECT_EQ(d & 0x3fff, 0x4400u >> 4);        // start address >> 4
  EXPECT_EQ((d >> 32) & 0x3fff, 1024u >> 4);  // stride byte offset >> 4
  EXPECT_EQ(d >> 62, 1u);                     // 128B
  EXPECT_EQ((d >> 16) & 0x3fff, 1u);          // leading byte offset: unused with a swizzle, 1 as CUTLASS writes it
  EXPECT_EQ(k_major_tile(SwizzleMode::Bytes64, 2, 64, 32).descriptor_mode, 2);
  EXPECT_EQ(k_major_tile(SwizzleMode::Bytes32, 2, 64, 16).descriptor_mode, 3);
  const SharedTile none = k_major_tile(SwizzleMode::None, 2, 64, 16);
  EXPECT_EQ(none.stride_byte_offset, 128);    // 8-row core matrices down M
  EXPECT_EQ(none.leading_byte_offset, 1024);  // the next core matrix along K, after 64 rows of 16 bytes
}

TEST(HopperSmem, ATmaBoxWithTheHundredTwentyEightByteSwizzleIsTheGemmsSwizzledTile) {
  EXPECT_EQ(tma_box(SwizzleMode::Bytes128, 2, 64, 64).cute, "Sw<3,3,3> o (64,64):(64,1)");
  EXPECT_EQ(tma_box(SwizzleMode::Bytes64, 4, 32, 16).cute, "Sw<2,2,3> o (32,16):(16,1)");
  EXPECT_EQ(tma_box(SwizzleMode::None, 2, 8, 24).cute, "(8,24):(24,1)");
  EXPECT_THROW(tma_box(SwizzleMode::Bytes128, 2, 64, 32), LegoError);  // the inner extent is the span
  EXPECT_THROW(tma_box(SwizzleMode::None, 2, 8, 12), LegoError);       // 24 bytes: not a multiple of 16
}

TEST(HopperSmem, BadModesSizesAndTilesAreClearErrors) {
  EXPECT_EQ(swizzle_mode_from_text("128B"), SwizzleMode::Bytes128);
  EXPECT_EQ(swizzle_mode_from_text("interleave"), SwizzleMode::None);
  try {
    swizzle_mode_from_text("256B");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("none, 32B, 64B, 128B"), std::string::npos);
  }
  EXPECT_THROW(k_major_tile(SwizzleMode::Bytes128, 3, 64, 64), LegoError);
  EXPECT_THROW(k_major_tile(SwizzleMode::Bytes128, 2, 60, 64), LegoError);
  EXPECT_THROW(k_major_tile(SwizzleMode::Bytes128, 2, 64, 48), LegoError);
}

}  // namespace
}  // namespace lego::atom
