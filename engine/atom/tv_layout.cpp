#include "atom/tv_layout.hpp"

#include "expr/diagnostic.hpp"

namespace lego::atom {

bool TvLayout::covers_tile_once() const {
  if (rows < 1 || cols < 1 || static_cast<std::int64_t>(rows) * cols > kMaxTileElements) return false;
  std::vector<int> held(static_cast<std::size_t>(rows * cols), 0);
  for (const Coord& c : cells) {
    if (c.row < 0 || c.row >= rows || c.col < 0 || c.col >= cols) return false;
    ++held[static_cast<std::size_t>(c.row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c.col)];
  }
  for (int h : held)
    if (h != 1) return false;
  return true;
}

TvLayout make_tv(int rows, int cols, int threads, int values, const std::function<Coord(int, int)>& place) {
  TvLayout tv{rows, cols, threads, values, {}};
  tv.cells.reserve(static_cast<std::size_t>(threads * values));
  for (int t = 0; t < threads; ++t)
    for (int v = 0; v < values; ++v) tv.cells.push_back(place(t, v));
  return tv;
}

std::optional<cute::Layout> to_cute(const TvLayout& tv) {
  std::vector<std::int64_t> table;
  table.reserve(tv.cells.size());
  for (const Coord& c : tv.cells) table.push_back(c.row + static_cast<std::int64_t>(tv.rows) * c.col);  // (thread, value) row-major
  return cute::from_table({tv.threads, tv.values}, table);
}

TvLayout from_cute(const cute::Layout& layout, int rows, int cols) {
  if (rows < 1 || cols < 1 || static_cast<std::int64_t>(rows) * cols > kMaxTileElements)
    throw LegoError("a thread-value layout's tile is 1 to " + std::to_string(kMaxTileElements) + " elements, not " + std::to_string(rows) +
                    " x " + std::to_string(cols));
  if (layout.modes.size() != 2)
    throw LegoError("a thread-value layout has two modes, (threads) and (values); this one has " + std::to_string(layout.modes.size()));
  const std::vector<std::int64_t> shape = cute::shape(layout);
  if (shape[0] * shape[1] > kMaxTileElements)
    throw LegoError("a thread-value layout of " + std::to_string(shape[0]) + " threads x " + std::to_string(shape[1]) +
                    " values is larger than any tile (" + std::to_string(kMaxTileElements) + " elements)");
  const int threads = static_cast<int>(shape[0]), values = static_cast<int>(shape[1]);
  return make_tv(rows, cols, threads, values, [&](int t, int v) {
    const std::int64_t index = cute::offset(layout, {t, v});
    if (index < 0 || index >= static_cast<std::int64_t>(rows) * cols)
      throw LegoError("thread " + std::to_string(t) + " value " + std::to_string(v) + " is element " + std::to_string(index) +
                      ", outside the " + std::to_string(rows) + " x " + std::to_string(cols) + " tile");
    return Coord{static_cast<int>(index % rows), static_cast<int>(index / rows)};
  });
}

}  // namespace lego::atom
