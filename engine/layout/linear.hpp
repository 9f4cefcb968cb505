// Triton's linear layouts (Linear Layouts, 2025): a layout whose extents are
// powers of two and whose map is linear over GF(2) is fixed by the image of
// each input bit; every other index maps to the XOR of the images of its set
// bits. Row- and column-major, tiles and XOR swizzles are linear; antidiag is
// not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lego {

struct LinearBases {
  // Per logical dimension, per bit (least significant first): the offset it maps to.
  std::vector<std::vector<std::int64_t>> bases;
  std::string why_not;  // empty when the layout is linear
  bool linear() const { return why_not.empty(); }
};

// From a layout's table (apply of every logical index, row-major over `shape`).
LinearBases linear_bases(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& table);

// As Triton's LinearLayout prints its bases: " - dim0=1 -> 8" per input bit.
std::string to_string(const LinearBases& bases, std::int64_t size);

}  // namespace lego
