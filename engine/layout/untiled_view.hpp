// A data layout as a tensor sees it. Kernels index a tensor by its own
// coordinates (i, j), but a TileBy layout's logical index is the tile
// coordinates (spec: TileBy). Dropping the desugared chain's final F (tile
// coordinates -> untiled row-major position) leaves the same layout as a
// GroupBy over the untiled extents, so `A[i, j]` means the same element for
// every alternative layout of A, tiled or not.
#pragma once

#include <cstddef>

#include "layout/ast.hpp"

namespace lego {

// The layout indexed by `rank` tensor coordinates. Returns the layout itself
// when its logical rank is already `rank`; throws LegoError (at the layout)
// when neither it nor its untiled view has that rank.
LayoutAst untiled_view(const LayoutAst& layout, std::size_t rank);

// The logical rank as written: the number of GroupBy dimensions or TileBy coordinates.
std::size_t logical_rank(const LayoutAst& layout);

}  // namespace lego
