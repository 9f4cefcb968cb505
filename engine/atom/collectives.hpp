// Warp-collective semantics computed from the atom tables, for the CPU
// emulator of CUDA kernels: a warp's 32 lanes meet, and the operation's
// result for every lane follows from the atom's thread-value layouts (so a
// wrong table fails verification instead of passing unnoticed).
//   - ldmatrix: lane 8r + i gives the address of row i of matrix r; lane t
//     receives in register r the two 16-bit elements of matrix r that the
//     D operand's table gives it, the lower-numbered value in the low half.
//   - stmatrix: the converse, each matrix row written where its lane says.
//   - mma: the fragments of A, B and C are assembled into matrices by their
//     tables, D = A * B + C is computed in double, and D is split back by
//     C's table.
//   - shfl: __shfl_sync's four forms within segments of `width` lanes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "atom/atoms.hpp"

namespace lego::atom {

constexpr int kWarpLanes = 32;

// 8 16-bit elements: one matrix row as memory holds it.
using MatrixRow = std::array<std::uint16_t, 8>;
// Each lane's registers: up to four 32-bit registers (x4).
using LaneRegisters = std::array<std::uint32_t, 4>;

// `row_at(lane)`: the row lane `lane` addresses (only lanes 0 .. 8N - 1 are
// asked). Throws LegoError for an atom that is not an ldmatrix.
std::array<LaneRegisters, kWarpLanes> ldmatrix(const Atom& atom, const std::function<MatrixRow(int lane)>& row_at);
// The rows stmatrix writes: row i of matrix r, addressed by lane 8r + i,
// from every lane's registers. Throws LegoError for an atom that is not a stmatrix.
std::vector<MatrixRow> stmatrix(const Atom& atom, const std::array<LaneRegisters, kWarpLanes>& registers);

// One lane's values of an operand, in value order (as doubles: the caller
// converts from and to the element type).
using Fragment = std::vector<double>;
// D's fragments for every lane. Throws LegoError for an atom that is not an
// mma, or fragments of the wrong sizes.
std::vector<Fragment> mma(const Atom& atom, const std::vector<Fragment>& a, const std::vector<Fragment>& b, const std::vector<Fragment>& c);

enum class Shuffle { Index, Up, Down, Xor };  // the numbering of lego_warp::ShuffleKind (atom/warp_rules.hpp)
// __shfl_sync(mask, value, lane_or_delta, width) for every lane: which lane's
// value each lane receives (its own where CUDA says so: Up below the delta,
// Down past the segment's end, a source outside the segment wraps into it
// for Index and keeps its own for Xor). `operand[lane]` is each lane's
// srcLane or delta. Throws LegoError for a width that is not a power of two
// up to 32.
std::array<int, kWarpLanes> shuffle_sources(Shuffle kind, const std::array<int, kWarpLanes>& operand, int width = kWarpLanes);

}  // namespace lego::atom
