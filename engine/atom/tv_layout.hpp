// Thread-value layouts: which element of a tile each thread's each value
// is. A TV layout maps (thread, value) to (row, col) of a rows x cols tile,
// as CuTe's TV layouts do; CuTe writes the same map as one layout
// ((threads), (values)) : strides into the tile's column-major index
// row + rows * col, e.g. ((4,8),(2,2,2)):((32,1),(16,8,128)) for the A
// operand of mma.m16n8k16.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "layout/cute.hpp"

namespace lego::atom {

struct Coord {
  int row = 0, col = 0;
  bool operator==(const Coord&) const = default;
};

// The largest tile a TV layout describes (a wgmma accumulator is 64 x 256).
constexpr std::int64_t kMaxTileElements = std::int64_t{1} << 20;

struct TvLayout {
  int rows = 0, cols = 0;  // the tile
  int threads = 0, values = 0;
  std::vector<Coord> cells;  // [thread * values + value]

  Coord at(int thread, int value) const { return cells.at(static_cast<std::size_t>(thread * values + value)); }
  // The tile's row-major index of the element (thread, value) holds.
  std::size_t element(int thread, int value) const {
    const Coord c = at(thread, value);
    return static_cast<std::size_t>(c.row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c.col);
  }
  // Every element of the tile held by exactly one (thread, value).
  bool covers_tile_once() const;
};

// The layout of `threads` x `values` cells, each placed by `place`.
TvLayout make_tv(int rows, int cols, int threads, int values, const std::function<Coord(int thread, int value)>& place);

// The CuTe form, found from the table (cute::from_table over (threads,
// values) of the column-major tile index); nullopt when the map is not a
// CuTe layout (no strides reproduce it).
std::optional<cute::Layout> to_cute(const TvLayout& tv);
// A CuTe TV layout ((threads), (values)) : strides over a rows x cols tile
// (column-major index). Throws LegoError when it does not have two
// top-level modes, the tile is empty or above kMaxTileElements, or a cell
// falls outside it.
TvLayout from_cute(const cute::Layout& tv, int rows, int cols);

}  // namespace lego::atom
