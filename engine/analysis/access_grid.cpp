#include "analysis/access_grid.hpp"

#include <algorithm>

namespace lego::analysis {

AccessGrid::AccessGrid(std::vector<Touch> touches, int bytes, MemoryKind memory)
    : touches_(std::move(touches)), bytes_(std::max(1, bytes)), words_per_row_(memory == MemoryKind::Host ? 16 : 32), memory_(memory) {
  std::set<std::int64_t> bases;
  for (const auto& t : touches_) {
    steps_ = std::max(steps_, t.step + 1);
    warps_ = std::max(warps_, t.thread / kWarpLanes + 1);
    bases.insert(t.offset * bytes_ / kWordBytes / words_per_row_ * words_per_row_);
  }
  row_base_.assign(bases.begin(), bases.end());
  for (std::size_t r = 0; r < row_base_.size(); ++r) row_of_[row_base_[r]] = static_cast<int>(r);
  for (const auto& t : touches_)
    for (const GridCell& c : cells_of(t.offset)) touched_.insert(c);
}

std::vector<GridCell> AccessGrid::cells_of(std::int64_t offset) const {
  const std::int64_t word = offset * bytes_ / kWordBytes;
  const std::int64_t base = word / words_per_row_ * words_per_row_;
  const auto row = row_of_.find(base);
  if (row == row_of_.end()) return {};
  std::vector<GridCell> cells;
  const int first = static_cast<int>(word - base);
  for (int w = 0; w < std::max(1, bytes_ / kWordBytes) && first + w < words_per_row_; ++w) cells.push_back({row->second, first + w});
  return cells;
}

GridSelection AccessGrid::select(int step, int warp) const {
  GridSelection s;
  for (const auto& t : touches_) {
    if ((step >= 0 && t.step != step) || (warp >= 0 && t.thread / kWarpLanes != warp)) continue;
    for (const GridCell& c : cells_of(t.offset)) {
      auto& threads = s.threads[c];
      if (std::find(threads.begin(), threads.end(), t.thread) == threads.end()) threads.push_back(t.thread);
    }
  }
  std::set<int> threads, rows;
  std::set<std::int64_t> sectors;
  std::map<int, int> per_column;
  for (const auto& [cell, ts] : s.threads) {
    threads.insert(ts.begin(), ts.end());
    rows.insert(cell.row);
    sectors.insert(byte_of(cell) / kSectorBytes);
    s.max_words_per_column = std::max(s.max_words_per_column, ++per_column[cell.word]);
  }
  s.distinct_threads = static_cast<int>(threads.size());
  s.sectors = static_cast<int>(sectors.size());
  s.lines = static_cast<int>(rows.size());
  return s;
}

}  // namespace lego::analysis
