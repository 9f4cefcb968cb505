#include "atom/hopper_smem.hpp"

#include <fmt/format.h>

#include "expr/diagnostic.hpp"

namespace lego::atom {
namespace {

int log2_of(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

void check_element(int element_bytes) {
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8)
    throw LegoError(fmt::format("elements of {} bytes: shared layouts of wgmma and TMA take 1, 2, 4 or 8", element_bytes));
}

// "Sw<B,M,3> o " for the mode, in elements ("" without a swizzle).
std::string swizzle_prefix(SwizzleMode mode, int element_bytes) {
  if (mode == SwizzleMode::None) return "";
  const int chunks = span_bytes(mode) / 16;
  return fmt::format("Sw<{},{},3> o ", log2_of(chunks), 4 - log2_of(element_bytes));
}

}  // namespace

SwizzleMode swizzle_mode_from_text(std::string_view text) {
  if (text == "none" || text == "interleave") return SwizzleMode::None;
  if (text == "32B" || text == "32") return SwizzleMode::Bytes32;
  if (text == "64B" || text == "64") return SwizzleMode::Bytes64;
  if (text == "128B" || text == "128") return SwizzleMode::Bytes128;
  throw LegoError("unknown swizzle mode \"" + std::string(text) + "\" (none, 32B, 64B, 128B)");
}

std::string to_string(SwizzleMode mode) {
  switch (mode) {
    case SwizzleMode::None:
      return "none";
    case SwizzleMode::Bytes32:
      return "32B";
    case SwizzleMode::Bytes64:
      return "64B";
    case SwizzleMode::Bytes128:
      return "128B";
  }
  return "none";
}

int span_bytes(SwizzleMode mode) {
  switch (mode) {
    case SwizzleMode::None:
      return 16;
    case SwizzleMode::Bytes32:
      return 32;
    case SwizzleMode::Bytes64:
      return 64;
    case SwizzleMode::Bytes128:
      return 128;
  }
  return 16;
}

SharedTile k_major_tile(SwizzleMode mode, int element_bytes, int rows, int cols) {
  check_element(element_bytes);
  SharedTile t;
  t.mode = mode;
  t.element_bytes = element_bytes;
  t.rows = rows;
  t.cols = cols;
  t.atom_cols = span_bytes(mode) / element_bytes;
  if (rows < 8 || rows % 8 != 0) throw LegoError(fmt::format("{} rows: a wgmma or TMA tile has a multiple of 8", rows));
  if (cols < t.atom_cols || cols % t.atom_cols != 0)
    throw LegoError(fmt::format("{} columns of {}-byte elements: the {} mode's atom is {} wide, and the columns must be a multiple of it",
                                cols, element_bytes, to_string(mode), t.atom_cols));
  const int w = t.atom_cols;
  // Atoms of 8 rows x w: down the rows (8 w apart), then along K (rows x w apart).
  t.cute = swizzle_prefix(mode, element_bytes) +
           fmt::format("((8,{}),({},{})):(({},{}),(1,{}))", rows / 8, w, cols / w, w, 8 * w, std::int64_t{rows} * w);
  t.lego = "CuTe(" + t.cute + ")";
  t.stride_byte_offset = 8LL * span_bytes(mode);
  // Ignored with a swizzle; CUTLASS encodes 1 there (16 bytes), and so do we.
  t.leading_byte_offset = mode == SwizzleMode::None ? std::int64_t{rows} * 16 : 16;
  t.descriptor_mode = mode == SwizzleMode::Bytes128 ? 1 : mode == SwizzleMode::Bytes64 ? 2 : mode == SwizzleMode::Bytes32 ? 3 : 0;
  return t;
}

std::uint64_t wgmma_descriptor(const SharedTile& tile, std::uint32_t start) {
  const auto field = [](std::int64_t bytes) { return static_cast<std::uint64_t>((bytes >> 4) & 0x3fff); };
  return field(start) | field(tile.leading_byte_offset) << 16 | field(tile.stride_byte_offset) << 32 |
         static_cast<std::uint64_t>(tile.descriptor_mode) << 62;
}

SharedTile tma_box(SwizzleMode mode, int element_bytes, int rows, int inner) {
  check_element(element_bytes);
  const int span = span_bytes(mode);
  if (mode != SwizzleMode::None && inner * element_bytes != span)
    throw LegoError(fmt::format("a TMA box with the {} swizzle has an inner extent of {} bytes ({} elements), not {}", to_string(mode),
                                span, span / element_bytes, inner * element_bytes));
  if (mode == SwizzleMode::None && (inner * element_bytes) % 16 != 0)
    throw LegoError(fmt::format("a TMA box's inner extent is a multiple of 16 bytes, not {}", inner * element_bytes));
  if (rows < 1) throw LegoError("a TMA box has at least one row");
  SharedTile t;
  t.mode = mode;
  t.element_bytes = element_bytes;
  t.rows = rows;
  t.cols = inner;
  t.atom_cols = inner;
  t.cute = swizzle_prefix(mode, element_bytes) + fmt::format("({},{}):({},1)", rows, inner, inner);
  t.lego = "CuTe(" + t.cute + ")";
  return t;
}

}  // namespace lego::atom
