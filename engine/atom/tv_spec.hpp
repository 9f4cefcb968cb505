// A thread-value layout named by its atom, as the layout language's
// Atom(...) piece and the command line write it:
//
//   mma.m16n8k16.f16:A                  the operand's TV layout (32 lanes x 8 values)
//   mma.m16n8k16.f16:C, [2,2]           a TiledMMA: the atom over a 2 x 2 warp grid
//   mma.m16n8k16.f16:C, [2,2], [1,2]    ... each warp repeating it 1 x 2 times
//
// (the command line also takes 2x2 for [2,2]; the layout language's lexer
// does not).
//
// The tiled layout numbers what tile_operand draws: thread t is lane t % 32
// of warp t / 32 (warps row-major over the grid; a wgmma atom's "warps" are
// 128-thread warpgroups), and value r * V + v is value v of repeat r
// (repeats row-major over the warp's own block). This is LEGO's tiling, not
// CuTe's make_tiled_mma: CuTe numbers warps column-major, interleaves the
// repeats across warps, and shares A among the N warps (B among the M warps)
// where this gives every warp its own block of each operand.
#pragma once

#include <string>
#include <string_view>

#include "atom/tv_layout.hpp"

namespace lego::atom {

struct TvSpec {
  std::string atom, operand;
  int warps_m = 1, warps_n = 1, repeat_m = 1, repeat_n = 1;
};

// Throws LegoError with a span into `text` (column 1 is text's first
// character): an unknown atom or operand, or a grid that is not RxC.
TvSpec parse_tv_spec(std::string_view text);

// The layout over the whole tile; throws LegoError above kMaxTileElements.
TvLayout tv_of(const TvSpec& spec);

}  // namespace lego::atom
