#include "atom/tiled.hpp"

#include <algorithm>

#include "expr/diagnostic.hpp"

namespace lego::atom {

TiledTable holders_table(const TvLayout& tv, const std::string& name) {
  TiledTable t;
  t.atom = name;
  t.atom_rows = t.rows = tv.rows;
  t.atom_cols = t.cols = tv.cols;
  t.warps_m = (tv.threads + 31) / 32;
  t.cells.resize(static_cast<std::size_t>(tv.rows) * static_cast<std::size_t>(tv.cols));
  for (int thread = 0; thread < tv.threads; ++thread)
    for (int value = 0; value < tv.values; ++value) t.cells[tv.element(thread, value)] = {thread / 32, thread % 32, value};
  return t;
}

std::vector<Coord> TiledTable::lane_cells(int warp, int lane) const {
  std::vector<std::pair<int, Coord>> held;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const Holder& h = at(r, c);
      if (h.warp == warp && h.lane == lane) held.push_back({h.value, {r, c}});
    }
  std::sort(held.begin(), held.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Coord> out;
  for (const auto& [value, at_cell] : held) out.push_back(at_cell);
  return out;
}

TiledTable tile_operand(const Atom& atom, const Operand& operand, int warps_m, int warps_n, int repeat_m, int repeat_n) {
  if (warps_m < 1 || warps_n < 1 || repeat_m < 1 || repeat_n < 1)
    throw LegoError("a TiledMMA needs at least one warp and one repeat along each side");
  const TvLayout& tv = operand.tv;
  const std::int64_t rows = std::int64_t{tv.rows} * warps_m * repeat_m, cols = std::int64_t{tv.cols} * warps_n * repeat_n;
  if (rows * cols > kMaxTileElements)
    throw LegoError("a tile of " + std::to_string(rows) + " x " + std::to_string(cols) + " elements is larger than a TV layout may be (" +
                    std::to_string(kMaxTileElements) + ")");
  TiledTable t{
      atom.name, operand.name, tv.rows, tv.cols, warps_m, warps_n, repeat_m, repeat_n, static_cast<int>(rows), static_cast<int>(cols), {}};
  t.cells.assign(static_cast<std::size_t>(rows * cols), Holder{});
  // One warp-sized group of threads per warp: a wgmma operand's 128
  // threads are four warps of their own, lane = thread % 32.
  for (int wy = 0; wy < warps_m; ++wy)
    for (int wx = 0; wx < warps_n; ++wx)
      for (int ry = 0; ry < repeat_m; ++ry)
        for (int rx = 0; rx < repeat_n; ++rx) {
          const int row0 = (wy * repeat_m + ry) * tv.rows, col0 = (wx * repeat_n + rx) * tv.cols, repeat = ry * repeat_n + rx;
          for (int thread = 0; thread < tv.threads; ++thread)
            for (int v = 0; v < tv.values; ++v) {
              const Coord c = tv.at(thread, v);
              const int warp = (wy * warps_n + wx) * ((tv.threads + 31) / 32) + thread / 32;
              t.cells[static_cast<std::size_t>(row0 + c.row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col0 + c.col)] =
                  Holder{warp, thread % 32, repeat * tv.values + v};
            }
        }
  return t;
}

}  // namespace lego::atom
