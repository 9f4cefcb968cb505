// The shared-memory layouts Hopper's asynchronous units read and write,
// modelled as layouts: a wgmma operand's shared-memory descriptor and a TMA
// 2-D box each name a swizzle mode (none, 32, 64 or 128 bytes), and the mode
// fixes where every element of the tile sits. Rows of the tile are its M (or
// N) index, columns its K index, contiguous (K-major). The unit is an 8-row
// atom whose rows are the swizzle's span: 16-byte chunk c of row r moves to
// chunk c XOR (r mod 8 / (8 / chunks)) — CuTe's Swizzle<B, M, 3> with B = log2
// of the span's 16-byte chunks and M = log2(16 / element bytes); no swizzle
// is the interleaved 8 x 16-byte core matrix. Atoms go down the rows first,
// then along K, as CuTe's tile_to_shape lays them (GMMA::Layout_K_*_Atom).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lego::atom {

enum class SwizzleMode { None, Bytes32, Bytes64, Bytes128 };

// "none", "32B", "64B", "128B" (also "interleave", "32", "64", "128"); throws LegoError listing them.
SwizzleMode swizzle_mode_from_text(std::string_view text);
std::string to_string(SwizzleMode mode);
int span_bytes(SwizzleMode mode);  // 16 (none: a core matrix row), 32, 64, 128

struct SharedTile {
  SwizzleMode mode = SwizzleMode::None;
  int element_bytes = 2, rows = 0, cols = 0;
  int atom_cols = 0;  // elements per atom row: span / element bytes
  std::string cute;   // CuTe notation in elements: "Sw<3,3,3> o ((8,8),(64,1)):((64,512),(1,4096))"
  std::string lego;   // the same in the layout language
  // wgmma's descriptor fields for this tile, in bytes (PTX "matrix
  // descriptor"): stride byte offset between 8-row groups; leading byte
  // offset between core matrices along K (without a swizzle; 1, unused, with one).
  std::int64_t stride_byte_offset = 0, leading_byte_offset = 0;
  int descriptor_mode = 0;  // the 2-bit field: 0 none, 1 128B, 2 64B, 3 32B
};

// Throws LegoError for element sizes other than 1, 2, 4 or 8, rows not a
// multiple of 8, or columns not a multiple of the atom's width.
SharedTile k_major_tile(SwizzleMode mode, int element_bytes, int rows, int cols);

// The 64-bit wgmma descriptor of a tile starting at shared address `start`:
// bits 0-13 start >> 4, 16-29 leading byte offset >> 4, 32-45 stride byte
// offset >> 4, 62-63 the swizzle mode (base offset 0: atoms aligned to
// their span x 8 rows).
std::uint64_t wgmma_descriptor(const SharedTile& tile, std::uint32_t start);

// A TMA 2-D box of rows x inner elements written with `mode`: row r at r x
// inner elements, its 16-byte chunks swizzled within the span. The inner
// extent must be the span (or, without a swizzle, any multiple of 16 bytes).
SharedTile tma_box(SwizzleMode mode, int element_bytes, int rows, int inner);

}  // namespace lego::atom
