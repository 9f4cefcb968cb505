// Candidate layouts of the algebra for an R x C buffer, built as values:
// row- and column-major, tiles (every RegP ordering of a tile grid),
// padded rows, antidiag and skew, CuTe-style XOR swizzles. `lego suggest`
// scores them on a kernel's traced accesses (analysis/placement_score); here
// they are only made, and checked to place the R x C box one-to-one.
// To add a family: a builder below and its loop in buffer_candidates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "expr/expr.hpp"
#include "layout/ast.hpp"

namespace lego {

struct CandidateLayout {
  std::string name;    // "padded+1", "swizzle(3,0,3)", "tiles 4x8 col-major"
  std::string family;  // row, col, tiled, padded, antidiag, skew, swizzle (project: the caller's own)
  LayoutAst layout;    // at the buffer's sizes
};

// OrderBy(Row(rows, columns)).GroupBy([(rows, columns)]), and its column-major twin.
LayoutAst row_major_layout(std::int64_t rows, std::int64_t columns);
LayoutAst column_major_layout(std::int64_t rows, std::int64_t columns);

// Every candidate for a rows x columns buffer of `element_bytes`-byte elements, in a fixed order.
std::vector<CandidateLayout> buffer_candidates(std::int64_t rows, std::int64_t columns, int element_bytes);

// Where a candidate puts the buffer's R x C box, read as the buffer is
// indexed (a tiled layout's untiled view): offsets in row-major order of the
// box. Nullopt when it is not one-to-one there or does not hold the box.
struct Placement {
  std::vector<std::int64_t> offsets;  // R * C
  std::vector<std::int64_t> shape;    // the layout's logical shape (padding widens the last extent)
  std::int64_t extra_elements = 0;    // footprint beyond R * C
};
std::optional<Placement> place_buffer(const LayoutAst& layout, const Env& env, std::int64_t rows, std::int64_t columns);

// The layout as a 2-D buffer's accesses read it: a tiled layout's untiled view.
LayoutAst as_buffer_reads_it(const LayoutAst& layout);

}  // namespace lego
