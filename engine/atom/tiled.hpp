// A TiledMMA's picture: one operand of an atom repeated over a CTA tile
// (atom x warp grid x value repeat), each warp a block of its own. CuTe's
// make_tiled_mma covers the C tile the same way up to numbering (column-major
// warps, interleaved repeats) but shares A and B among warps (tv_spec.hpp). Warp
// (wy, wx) of a wm x wn grid owns a block of rm x rn atom tiles; its lane
// holds value r * V + v of repeat r (row-major over the block) for value v
// of the atom. Every element of the tile says which warp, lane and value
// hold it: the data the studio's TV view draws, and the CuTe TV layout of
// the whole tile read off the same cells.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "atom/atoms.hpp"

namespace lego::atom {

struct Holder {
  int warp = -1, lane = -1, value = -1;  // -1: no one (never, for a tiling)
};

struct TiledTable {
  std::string atom, operand;
  int atom_rows = 0, atom_cols = 0;  // one atom tile
  int warps_m = 1, warps_n = 1, repeat_m = 1, repeat_n = 1;
  int rows = 0, cols = 0;
  std::vector<Holder> cells;  // [row * cols + col]

  const Holder& at(int row, int col) const {
    return cells.at(static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col));
  }
  // The cells of one warp's lane, in value order: (row, col) each.
  std::vector<Coord> lane_cells(int warp, int lane) const;
};

// Any TV layout as the same picture: thread t is lane t % 32 of warp t / 32
// (warps stacked as warps_m), `name` in the atom's place. Elements no one
// holds keep Holder's -1s.
TiledTable holders_table(const TvLayout& tv, const std::string& name);

// Throws LegoError for grids or repeats below 1, or a tile above kMaxTileElements.
TiledTable tile_operand(const Atom& atom, const Operand& operand, int warps_m, int warps_n, int repeat_m, int repeat_n);

}  // namespace lego::atom
