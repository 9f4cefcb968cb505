// Bank conflicts, known answers: a 32x32 fp32 tile read by columns is
// 32-way; padded to 33 columns or XOR-swizzled it is conflict-free; NW's
// anti-diagonal walk conflicts on its row-major 33x33 buffer and not with
// the anti-diagonal layout; broadcasts are free; 8- and 16-byte accesses
// are served per half- and quarter-warp.
#include "analysis/banks.hpp"

#include <gtest/gtest.h>

#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::analysis {
namespace {

Plan plan_of(const char* text) { return make_plan(parse_layout(text), {}); }

// Lane l reads element (l, j) at step j: a column per step.
SharedAccessReport columns(const Plan& tile) {
  return analyze_shared(tile, 4, 32, [](int lane, int step) { return std::vector<std::int64_t>{lane, step}; });
}

TEST(Banks, ColumnReadsOfA32x32TileAre32Way) {
  const SharedAccessReport r = columns(plan_of("OrderBy(Row(32,32)).GroupBy([(32,32)])"));
  EXPECT_EQ(r.max_ways, 32);
  EXPECT_EQ(r.excess_wavefronts, 31 * 32);
  EXPECT_EQ(r.lane_bank[5][7], 1);  // lane 5 hit bank 7 once (step 7), like every lane
  EXPECT_EQ(r.lane_bank[5][8], 1);
}

TEST(Banks, RowReadsAreConflictFree) {
  const SharedAccessReport r = analyze_shared(plan_of("OrderBy(Row(32,32)).GroupBy([(32,32)])"), 4, 32, [](int lane, int step) {
    return std::vector<std::int64_t>{step, lane};
  });
  EXPECT_EQ(r.max_ways, 1);
  EXPECT_EQ(r.excess_wavefronts, 0);
}

TEST(Banks, PaddingTo33ColumnsRemovesTheConflict) {
  // The padded tile: 32 x 33 storage, logical (i, j) at i*33 + j.
  const Plan padded = plan_of("OrderBy(Row(32,33)).GroupBy([(32,33)])");
  const SharedAccessReport r = columns(padded);
  EXPECT_EQ(r.max_ways, 1);
  EXPECT_EQ(r.excess_wavefronts, 0);
}

TEST(Banks, XorSwizzleRemovesTheConflict) {
  // CuTe Swizzle<5,0,5>: column j of row i stored at column j ^ i.
  const SharedAccessReport r = columns(plan_of("OrderBy(GenP([32,32], swizzle(5,0,5))).GroupBy([(32,32)])"));
  EXPECT_EQ(r.max_ways, 1);
  EXPECT_EQ(r.excess_wavefronts, 0);
}

TEST(Banks, NwAntiDiagonalWalk) {
  // Rodinia NW: temp[B+1][B+1] with B = 32; at step m lane tx updates
  // temp[m - tx + 1][tx + 1] while tx <= m.
  auto walk = [](int lane, int m) -> std::vector<std::int64_t> {
    if (lane > m) return {};
    return {m - lane + 1, lane + 1};
  };
  const SharedAccessReport row_major = analyze_shared(plan_of("OrderBy(Row(33,33)).GroupBy([(33,33)])"), 4, 32, walk);
  EXPECT_EQ(row_major.max_ways, 32);    // stride 32 words between lanes: one bank
  EXPECT_EQ(row_major.worst_step, 31);  // the first step with all 32 lanes
  for (int lane = 0; lane < kWarp; ++lane) EXPECT_EQ(row_major.worst_lane_bank[static_cast<std::size_t>(lane)][(33 * 32 + 1) % 32], 1);
  const SharedAccessReport antidiag = analyze_shared(plan_of("OrderBy(GenP([33,33], antidiag)).TileBy([33,33])"), 4, 32, walk);
  EXPECT_EQ(antidiag.max_ways, 1);  // the anti-diagonal is contiguous
  EXPECT_EQ(antidiag.excess_wavefronts, 0);
}

TEST(Banks, BroadcastIsFreeAndWideAccessesGoByPhases) {
  WarpAccess same;
  same.active.fill(true);
  same.address.fill(128);  // every lane the same word
  EXPECT_EQ(analyze(same).ways, 1);

  WarpAccess wide;  // 8-byte, consecutive: each half-warp covers all 32 banks once
  wide.bytes = 8;
  wide.active.fill(true);
  for (int l = 0; l < kWarp; ++l) wide.address[static_cast<std::size_t>(l)] = 8 * l;
  const ConflictReport w = analyze(wide);
  EXPECT_EQ(w.phases, 2);
  EXPECT_EQ(w.ways, 1);
  EXPECT_EQ(w.excess(), 0);

  WarpAccess strided = wide;  // 8-byte with a 256-byte stride: 16 lanes of a half-warp in 2 banks
  for (int l = 0; l < kWarp; ++l) strided.address[static_cast<std::size_t>(l)] = 256 * l;
  EXPECT_EQ(analyze(strided).ways, 16);

  WarpAccess quad;  // 16-byte, consecutive: four quarter-warps, no conflict
  quad.bytes = 16;
  quad.active.fill(true);
  for (int l = 0; l < kWarp; ++l) quad.address[static_cast<std::size_t>(l)] = 16 * l;
  EXPECT_EQ(analyze(quad).phases, 4);
  EXPECT_EQ(analyze(quad).excess(), 0);

  WarpAccess bad = quad;
  bad.address[3] = 20;  // not 16-byte aligned
  EXPECT_THROW(analyze(bad), LegoError);
  bad.bytes = 2;
  EXPECT_THROW(analyze(bad), LegoError);
}

}  // namespace
}  // namespace lego::analysis
