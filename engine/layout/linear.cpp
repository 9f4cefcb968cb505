#include "layout/linear.hpp"

namespace lego {

namespace {

int bits_of(std::int64_t n) {
  int b = 0;
  while ((std::int64_t{1} << b) < n) ++b;
  return (std::int64_t{1} << b) == n ? b : -1;
}

std::string index_text(const std::vector<std::int64_t>& shape, std::int64_t i) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) c[k] = i % shape[k], i /= shape[k];
  std::string s = "(";
  for (std::size_t k = 0; k < c.size(); ++k) s += (k ? ", " : "") + std::to_string(c[k]);
  return s + ")";
}

}  // namespace

LinearBases linear_bases(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& table) {
  LinearBases out;
  std::vector<int> bits;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    bits.push_back(bits_of(shape[k]));
    if (bits.back() < 0) {
      out.why_not = "dimension " + std::to_string(k) + " has " + std::to_string(shape[k]) + " elements, not a power of two";
      return out;
    }
  }
  // The image of each input bit: the offset of the index with only that bit set.
  std::int64_t stride = static_cast<std::int64_t>(table.size());
  for (std::size_t k = 0; k < shape.size(); ++k) {
    stride /= shape[k];
    std::vector<std::int64_t> images;
    for (int b = 0; b < bits[k]; ++b) images.push_back(table[static_cast<std::size_t>((std::int64_t{1} << b) * stride)]);
    out.bases.push_back(std::move(images));
  }
  if (!table.empty() && table[0] != 0) {
    out.why_not = "index 0 maps to " + std::to_string(table[0]) + ", not 0";
    return out;
  }
  // Linear over GF(2): every index is the XOR of its bits' images.
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(table.size()); ++i) {
    std::int64_t x = 0, rest = i, at = static_cast<std::int64_t>(table.size());
    for (std::size_t k = 0; k < shape.size(); ++k) {
      at /= shape[k];
      const std::int64_t c = rest / at;
      rest %= at;
      for (int b = 0; b < bits[k]; ++b)
        if (c >> b & 1) x ^= out.bases[k][static_cast<std::size_t>(b)];
    }
    if (x != table[static_cast<std::size_t>(i)]) {
      out.why_not = "not linear over GF(2): index " + index_text(shape, i) + " maps to " +
                    std::to_string(table[static_cast<std::size_t>(i)]) + ", but the XOR of its bits' images is " + std::to_string(x);
      return out;
    }
  }
  return out;
}

std::string to_string(const LinearBases& bases, std::int64_t size) {
  std::string s;
  for (std::size_t k = 0; k < bases.bases.size(); ++k)
    for (std::size_t b = 0; b < bases.bases[k].size(); ++b)
      s += " - dim" + std::to_string(k) + "=" + std::to_string(std::int64_t{1} << b) + " -> " + std::to_string(bases.bases[k][b]) + "\n";
  return s + "where out dims are: [offset (size " + std::to_string(size) + ")]\n";
}

}  // namespace lego
