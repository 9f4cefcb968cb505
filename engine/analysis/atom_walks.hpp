// Shared-memory bank conflicts of a warp's atom walking a 2-D buffer: the
// access pattern of ldmatrix, stmatrix and cp.async (atom/atoms) over a
// buffer stored by a layout.
//   - ldmatrix.xN / stmatrix.x4: each of lanes 0 .. 8N - 1 addresses one
//     16-byte row of its 8x8 matrix, served a quarter-warp (one matrix) per
//     phase. The buffer is covered by 8N x 8 sub-tiles (x1, x2) or by 16 x
//     16 ones (x4: matrices 0 and 1 down the first 8 columns, 2 and 3 down
//     the next, as mma.m16n8k16 takes its A operand), row after row.
//   - cp.async.N: the warp's 32 lanes copy consecutive N-byte vectors,
//     covering the buffer row-major.
// A lane's access is one request of its width: its elements must sit at
// consecutive offsets of the layout, aligned to the width (ldmatrix's row
// of 8 16-bit elements is 16 contiguous bytes), or the atom cannot be used
// on this buffer at all.
#pragma once

#include <cstdint>

#include "analysis/banks.hpp"
#include "atom/atoms.hpp"

namespace lego::analysis {

// A walk named after the atom, at most `max_steps` steps. Throws LegoError
// saying why when the atom cannot access this buffer: an mma or wgmma
// (their operands are registers), an element size the atom does not move
// (ldmatrix and stmatrix move 16-bit elements), a buffer its sub-tiles do
// not divide, or a lane's elements that are not contiguous and aligned
// (naming the lane, its first element and where the layout puts the next).
WalkReport atom_walk(const Plan& layout, int element_bytes, const atom::Atom& atom, std::int64_t max_steps = 2048);

}  // namespace lego::analysis
