// One access site's touches laid out as memory the way the hardware groups
// it: rows of 4-byte words, 32 to a row for shared memory (a column is a
// bank) and for global memory (a row is a 128-byte line of four 32-byte
// sectors), 16 for host memory (a 64-byte CPU line). Only rows the trace
// touches exist. Selecting a step and a warp gives one warp request (step s
// of a thread is its s-th execution of the access): the words it touches
// with their threads, and what that request costs (words in one bank,
// sectors, lines). The app's thread map draws this; it computes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "analysis/accesses.hpp"

namespace lego::analysis {

constexpr int kWarpLanes = 32;
constexpr int kWordBytes = 4;
constexpr int kSectorBytes = 32;
constexpr int kWordsPerSector = kSectorBytes / kWordBytes;
// Threads are numbered x-fastest within a block; a warp is 32 of them.
constexpr int lane_of(int thread) { return thread % kWarpLanes; }
constexpr int warp_of(int thread) { return thread / kWarpLanes; }

struct GridCell {
  int row = 0, word = 0;
  bool operator<(const GridCell& o) const { return row != o.row ? row < o.row : word < o.word; }
};

// What one step of one warp (or every step, every warp) touches.
struct GridSelection {
  std::map<GridCell, std::vector<int>> threads;  // each touched word and the threads touching it
  int distinct_threads = 0;
  int max_words_per_column = 0;  // shared: distinct words in one bank, the request's conflict
  int sectors = 0;               // distinct 32-byte sectors
  int lines = 0;                 // distinct rows: 128-byte lines (global) or 64-byte lines (host)
};

class AccessGrid {
 public:
  AccessGrid() = default;
  // bytes: the element size (an 8- or 16-byte element covers 2 or 4 words).
  AccessGrid(std::vector<Touch> touches, int bytes, MemoryKind memory);

  MemoryKind memory() const { return memory_; }
  int bytes() const { return bytes_; }
  int steps() const { return steps_; }
  int warps() const { return warps_; }
  int rows() const { return static_cast<int>(row_base_.size()); }
  int words_per_row() const { return words_per_row_; }
  std::int64_t row_base(int row) const { return row_base_.at(static_cast<std::size_t>(row)); }  // the row's first word
  std::int64_t byte_of(GridCell cell) const { return (row_base(cell.row) + cell.word) * kWordBytes; }
  bool touched(GridCell cell) const { return touched_.count(cell) > 0; }
  std::vector<GridCell> cells_of(std::int64_t offset) const;  // the words an element covers

  // step, warp: -1 for every one.
  GridSelection select(int step, int warp) const;

 private:
  std::vector<Touch> touches_;
  std::vector<std::int64_t> row_base_;  // sorted
  std::map<std::int64_t, int> row_of_;  // row base -> row
  std::set<GridCell> touched_;
  int bytes_ = 4, words_per_row_ = 32, steps_ = 0, warps_ = 0;
  MemoryKind memory_ = MemoryKind::Shared;
};

}  // namespace lego::analysis
