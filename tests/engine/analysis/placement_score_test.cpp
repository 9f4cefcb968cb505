// A buffer's accesses scored for a placement, from a trace given as data.
#include "analysis/placement_score.hpp"

#include <gtest/gtest.h>

namespace lego::analysis {
namespace {

// A 32 x 32 float buffer in shared memory; each of 32 lanes reads its own
// row, one column per step (4 steps): a column of the buffer per request.
BufferTrace columns_of_a_tile() {
  BufferTrace t;
  t.columns = 32;
  t.sites = {SiteInfo{0, "S", MemoryKind::Shared, "smem S[r, c]", 7}};
  t.bytes[0] = 4;
  for (std::int32_t step = 0; step < 4; ++step)
    for (std::int32_t lane = 0; lane < 32; ++lane) t.accesses.push_back({0, step, lane, 0, step, lane, step});
  return t;
}

std::vector<std::int64_t> row_major(std::int64_t rows, std::int64_t columns, std::int64_t pitch) {
  std::vector<std::int64_t> offsets;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < columns; ++c) offsets.push_back(r * pitch + c);
  return offsets;
}

TEST(PlacementScore, AColumnOfARowMajorTileIsAThirtyTwoWayConflictAndPaddingRemovesIt) {
  const BufferTrace t = columns_of_a_tile();
  const PlacementScore rows = score_placement(t, row_major(32, 32, 32));
  EXPECT_EQ(rows.worst_ways, 32);
  EXPECT_EQ(rows.excess_wavefronts, 4 * 31);
  EXPECT_EQ(rows.shared_sites, 1);
  ASSERT_EQ(rows.sites.size(), 1u);
  EXPECT_EQ(rows.sites[0].line, 7);
  EXPECT_EQ(rows.worst_site, "smem S[r, c] (line 7): 32-way, lanes 0, 1, 2, .., 31 on bank 0");
  // Each lane reads 4 consecutive, aligned elements of its row: one float4.
  EXPECT_EQ(rows.vector_elements, 4);

  const PlacementScore padded = score_placement(t, row_major(32, 32, 33));
  EXPECT_EQ(padded.worst_ways, 1);
  EXPECT_EQ(padded.excess_wavefronts, 0);
  EXPECT_EQ(padded.vector_elements, 1);  // rows start off a 16-byte boundary
}

// ldmatrix.x4 over a 64 x 64 fp16 tile: lane l addresses row l's 16-byte
// run at column 0 (8 halves). Row-major puts the 8 rows of a phase in bank
// 0..3 each (8-way); a pad of 8 halves is conflict-free; a pad of 1 half
// breaks the runs' 16-byte alignment and one of 4 rows would move them
// apart: the placement is unusable, and says why.
TEST(PlacementScore, AnLdmatrixRowIsSixteenBytesThatAPlacementMustKeepTogether) {
  BufferTrace t;
  t.columns = 64;
  t.sites = {SiteInfo{0, "SA", MemoryKind::Shared, "smem SA[r, c]", 12}};
  t.bytes[0] = 2;
  t.access_bytes[0] = 16;
  for (std::int32_t lane = 0; lane < 32; ++lane) t.accesses.push_back({0, 0, lane, 0, 0, lane, 0});
  const PlacementScore rows = score_placement(t, row_major(64, 64, 64));
  EXPECT_EQ(rows.worst_ways, 8);
  EXPECT_EQ(rows.vector_elements, 8);
  EXPECT_EQ(widened_access_problem(t, row_major(64, 64, 64)), "");
  EXPECT_EQ(score_placement(t, row_major(64, 64, 72)).worst_ways, 1);
  EXPECT_EQ(widened_access_problem(t, row_major(64, 64, 72)), "");
  EXPECT_EQ(widened_access_problem(t, row_major(64, 64, 65)),
            "smem SA[r, c] (line 12) moves 16 bytes per lane, and (1, 0) .. (1, 7) are not 8 consecutive elements from a 16-byte boundary");
  std::vector<std::int64_t> scattered = row_major(64, 64, 64);
  std::swap(scattered[3], scattered[64]);  // (0, 3) and (1, 0) trade places
  EXPECT_NE(widened_access_problem(t, scattered).find("(0, 0) .. (0, 7)"), std::string::npos);
}

// A 16-byte cp.async into a 64 x 2 float buffer covers two rows: the run
// continues on the next row in row-major order, and row-major keeps it.
TEST(PlacementScore, AWideAccessMayRunOnToTheNextRow) {
  BufferTrace t;
  t.columns = 2;
  t.sites = {SiteInfo{0, "S", MemoryKind::Shared, "smem S[r, c]", 3}};
  t.bytes[0] = 4;
  t.access_bytes[0] = 16;
  for (std::int32_t lane = 0; lane < 32; ++lane) t.accesses.push_back({0, 0, lane, 0, 0, 2 * lane, 0});
  EXPECT_EQ(widened_access_problem(t, row_major(64, 2, 2)), "");
  EXPECT_NE(widened_access_problem(t, row_major(64, 2, 3)), "");  // padded rows break the run
}

TEST(PlacementScore, OtherElementWidthsAreScoredOnTheSameRequests) {
  const BufferTrace t = columns_of_a_tile();
  // A column of a row-major tile: 8-byte elements are served a half-warp at
  // a time, 16-byte ones a quarter-warp: 16 and 8 lanes on one bank.
  const auto rows = row_major(32, 32, 32);
  EXPECT_EQ(ways_by_width(t, rows, score_placement(t, rows).worst_ways), (std::array<int, 3>{32, 16, 8}));
  const auto padded = row_major(32, 32, 33);
  EXPECT_EQ(ways_by_width(t, padded, score_placement(t, padded).worst_ways), (std::array<int, 3>{1, 1, 1}));
  EXPECT_EQ(ways_by_width(BufferTrace{}, padded, -1), (std::array<int, 3>{-1, -1, -1}));
}

TEST(PlacementScore, HostAccessesAreScoredAsCacheLines) {
  BufferTrace t;
  t.columns = 16;
  t.sites = {SiteInfo{0, "B", MemoryKind::Host, "B[i, j]", 3}};
  t.bytes[0] = 4;
  for (std::int32_t step = 0; step < 16; ++step) t.accesses.push_back({0, step, 0, 0, step, step, 0});  // down a column
  const PlacementScore rows = score_placement(t, row_major(16, 16, 16));
  EXPECT_EQ(rows.host_sites, 1);
  EXPECT_EQ(rows.worst_ways, -1);
  EXPECT_GT(rows.lines_per_access, 0.99);  // every access its own line
  std::vector<std::int64_t> columns;       // column-major: the walk is contiguous
  for (std::int64_t r = 0; r < 16; ++r)
    for (std::int64_t c = 0; c < 16; ++c) columns.push_back(c * 16 + r);
  EXPECT_LT(score_placement(t, columns).lines_per_access, 0.2);
}

}  // namespace
}  // namespace lego::analysis
