// CuTe layouts in and out (issue 16). CuTe writes a layout as
// shape:stride with nested modes, `(4,8):(8,1)` or `((2,4),(2,2)):((1,8),(2,4))`,
// optionally composed with a swizzle on the left, `Sw<3,4,3> o (8,64):(64,1)`.
// A top-level mode is one logical dimension; a coordinate of a nested mode is
// split colexicographically (its first leaf fastest), as CuTe does. The
// offset is the sum of leaf coordinates times strides, then swizzled.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lego::cute {

struct Leaf {
  std::int64_t size = 1, stride = 0;
};

struct Layout {
  std::vector<std::vector<Leaf>> modes;       // top-level modes, each its leaves (first fastest)
  std::optional<std::array<int, 3>> swizzle;  // B, M, S of Sw<B,M,S>
};

// Throws LegoError "column C: ..." for text that is not CuTe's notation, or
// sizes whose product or offsets overflow.
Layout parse(std::string_view text);
std::string to_string(const Layout& layout);

std::vector<std::int64_t> shape(const Layout& layout);  // each top-level mode's size
std::int64_t size(const Layout& layout);
// CuTe's offset of a logical coordinate (one per top-level mode).
std::int64_t offset(const Layout& layout, const std::vector<std::int64_t>& coordinate);
std::int64_t swizzle(const std::array<int, 3>& bms, std::int64_t x);

// The layout in the layout language: RegP for a bijection onto [0, size)
// without a swizzle, else a GenP with its lambdas; apply only when it is
// injective but not onto, with a footprint of its largest offset + 1
// ((32,32):(33,1) needs 1055 elements). Throws LegoError naming two
// coordinates that share an offset when it is not injective (stride 0,
// overlaps).
std::string to_lego(const Layout& layout);

// The layout as one piece over its top-level modes, for the layout
// language's inline CuTe(...) piece: Row or Col when it is one, else the
// GenP of to_lego. Throws as to_lego does.
std::string to_lego_piece(const Layout& layout);

// A layout language layout's CuTe form, found from its table: each logical
// dimension's offsets factor into (size, stride) leaves and add up across
// dimensions. nullopt when they do not (a GenP such as antidiag).
std::optional<Layout> from_table(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& table);
// from_table, or else strides under a CuTe swizzle Sw<B,M,S> on the left
// (B 1..5, M 0..5, S 1..8): CuTe's swizzle is its own inverse, so each one
// CuTe could mean is undone and strides looked for underneath.
std::optional<Layout> from_table_maybe_swizzled(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& table);

}  // namespace lego::cute
