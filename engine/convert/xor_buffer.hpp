// The shared buffer built, not searched, where both sides are linear over
// GF(2): when a thread-value layout maps (thread, value) to the tile's
// row-major index by XOR of the images of their bits (the atoms' fragments,
// row- and column-major tiles of powers of two), the buffer can be any
// invertible XOR map of the index's bits, and one exists that is
// conflict-free on both sides whenever any is (Triton's
// GenericSwizzling.cpp reasons the same way):
//   - the lowest address bits are the value bits both sides hold in the
//     same order (up to 16 bytes): each side stores and loads them as one
//     vector;
//   - the next bits pick the access's slot in a 128-byte wavefront; the
//     lanes of one phase (32 lanes for 4-byte accesses, 16 for 8, 8 for 16)
//     must land in distinct slots on both sides, which holds when the span
//     of the remaining address bits meets neither side's phase lanes. That
//     span is grown greedily from the vector bits, fewest-bit vectors first,
//     so it stays as close to row-major as the conflicts allow;
//   - the slot bits are the store side's phase lanes, completed to a basis.
// Written as a LEGO GenP of XORs with its inverse. nullopt when a side is
// not linear, a size is not a power of two, or no such span exists.
#pragma once

#include <vector>

#include "atom/tv_layout.hpp"
#include "layout/candidates.hpp"

namespace lego::convert {

// Up to three: the lowest address bits a vector both sides hold, FROM's
// own, TO's own (duplicates dropped); none when a side is not linear.
std::vector<CandidateLayout> xor_buffers(const atom::TvLayout& from, const atom::TvLayout& to, int element_bytes);

}  // namespace lego::convert
