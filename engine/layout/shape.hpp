// Small helpers on shapes (lists of extents) shared by the layout module and
// its users: products, row-major weights, the row-major odometer, and the
// two ways shapes and indices are written in messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lego {

using Shape = std::vector<std::int64_t>;

inline std::int64_t product(const Shape& s) {
  std::int64_t p = 1;
  for (auto x : s) p *= x;
  return p;
}

// w[k] = prod(n[k+1..]): the weight of dimension k in flat(i, n).
inline Shape row_major_weights(const Shape& n) {
  Shape w(n.size());
  std::int64_t acc = 1;
  for (std::size_t k = n.size(); k-- > 0;) {
    w[k] = acc;
    acc *= n[k];
  }
  return w;
}

// Advances idx to the next index of the box in row-major order; false after the last.
inline bool next_index(Shape& idx, const Shape& shape) {
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (++idx[k] < shape[k]) return true;
    idx[k] = 0;
  }
  return false;
}

// "[4,4]" for shapes, "(1,2)" for indices.
inline std::string list_text(const std::int64_t* v, std::size_t n, char open = '[', char close = ']') {
  std::string s(1, open);
  for (std::size_t k = 0; k < n; ++k) s += (k ? "," : "") + std::to_string(v[k]);
  return s + close;
}
inline std::string shape_text(const Shape& s) { return list_text(s.data(), s.size()); }
inline std::string index_text(const std::int64_t* idx, std::size_t rank) { return list_text(idx, rank, '(', ')'); }
inline std::string index_text(const Shape& idx) { return index_text(idx.data(), idx.size()); }

}  // namespace lego
