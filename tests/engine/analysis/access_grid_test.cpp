// The thread map's model, checked against what the hardware does: a warp
// reading a column of a 32-float-wide shared tile puts 32 words in one bank,
// a row read puts one in each; global rows are 128-byte lines of four
// 32-byte sectors; host rows are 64-byte lines; wide elements cover several
// words; a step and a warp select one request.
#include "analysis/access_grid.hpp"

#include <gtest/gtest.h>

namespace lego::analysis {
namespace {

std::vector<Touch> one_warp(std::int64_t (*offset)(int lane), int step = 0, int first_thread = 0) {
  std::vector<Touch> touches;
  for (int lane = 0; lane < kWarpLanes; ++lane) touches.push_back({step, first_thread + lane, offset(lane)});
  return touches;
}

TEST(AccessGrid, AColumnOfASharedTileIsA32WayConflictAndARowIsNone) {
  const AccessGrid column(one_warp([](int lane) -> std::int64_t { return lane * 32; }), 4, MemoryKind::Shared);
  const GridSelection c = column.select(0, 0);
  EXPECT_EQ(column.rows(), 32);
  EXPECT_EQ(c.max_words_per_column, 32);
  EXPECT_EQ(c.distinct_threads, 32);
  const AccessGrid row(one_warp([](int lane) -> std::int64_t { return lane; }), 4, MemoryKind::Shared);
  const GridSelection r = row.select(0, 0);
  EXPECT_EQ(r.max_words_per_column, 1);
  EXPECT_EQ(r.lines, 1);
  // Padding the row to 33 floats spreads the column over every bank.
  const AccessGrid padded(one_warp([](int lane) -> std::int64_t { return lane * 33; }), 4, MemoryKind::Shared);
  EXPECT_EQ(padded.select(0, 0).max_words_per_column, 1);
}

TEST(AccessGrid, GlobalRowsAreLinesOfFourSectorsAndWideElementsCoverSeveralWords) {
  const AccessGrid floats(one_warp([](int lane) -> std::int64_t { return lane; }), 4, MemoryKind::Global);
  EXPECT_EQ(floats.select(0, 0).sectors, 4);
  EXPECT_EQ(floats.select(0, 0).lines, 1);
  const AccessGrid doubles(one_warp([](int lane) -> std::int64_t { return lane; }), 8, MemoryKind::Global);
  EXPECT_EQ(doubles.select(0, 0).sectors, 8);
  EXPECT_EQ(doubles.rows(), 2);
  const auto cells = doubles.cells_of(1);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].word, 2);
  EXPECT_EQ(cells[1].word, 3);
  EXPECT_EQ(doubles.byte_of(cells[1]), 12);
  // A strided read touches one sector per lane.
  const AccessGrid strided(one_warp([](int lane) -> std::int64_t { return lane * 64; }), 4, MemoryKind::Global);
  EXPECT_EQ(strided.select(0, 0).sectors, 32);
}

TEST(AccessGrid, HostRowsAre64ByteLines) {
  const AccessGrid host(one_warp([](int lane) -> std::int64_t { return lane; }), 4, MemoryKind::Host);
  EXPECT_EQ(host.words_per_row(), 16);
  EXPECT_EQ(host.select(-1, -1).lines, 2);
}

TEST(AccessGrid, AStepAndAWarpSelectOneRequest) {
  std::vector<Touch> touches = one_warp([](int lane) -> std::int64_t { return lane; });                             // warp 0, step 0
  for (const Touch& t : one_warp([](int lane) -> std::int64_t { return lane * 32; }, 0, 32)) touches.push_back(t);  // warp 1, step 0
  for (const Touch& t : one_warp([](int lane) -> std::int64_t { return 1024 + lane; }, 1)) touches.push_back(t);    // warp 0, step 1
  const AccessGrid grid(touches, 4, MemoryKind::Shared);
  EXPECT_EQ(grid.steps(), 2);
  EXPECT_EQ(grid.warps(), 2);
  EXPECT_EQ(grid.select(0, 0).max_words_per_column, 1);
  EXPECT_EQ(grid.select(0, 1).max_words_per_column, 32);
  EXPECT_EQ(grid.select(1, 0).threads.size(), 32u);
  EXPECT_EQ(grid.select(1, 1).threads.size(), 0u);
  EXPECT_EQ(grid.select(-1, -1).distinct_threads, 64);
  EXPECT_TRUE(grid.touched({0, 5}));
}

}  // namespace
}  // namespace lego::analysis
