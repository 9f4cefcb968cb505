#include "layout/cute.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <numeric>

#include "expr/diagnostic.hpp"

namespace lego::cute {

namespace {

// Big enough for any tile; small enough that a table of every offset is
// quick to build and check. Strides are bounded so that no offset overflows.
constexpr std::int64_t kMaxSize = std::int64_t{1} << 20;
constexpr std::int64_t kMaxStride = std::int64_t{1} << 31;

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r > (std::int64_t{1} << 50)) throw LegoError(std::string(what) + " is too large");
  return r;
}

// A shape or stride: an integer or a tuple of them.
struct Tree {
  std::int64_t value = 0;
  std::vector<Tree> children;
  bool leaf = true;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Layout layout() {
    Layout out;
    skip();
    if (peek_word("Swizzle") || peek_word("Sw")) {
      pos_ += peek_word("Swizzle") ? 7 : 2;
      expect('<');
      std::array<int, 3> bms{};
      for (int k = 0; k < 3; ++k) {
        if (k) expect(',');
        const std::int64_t v = integer(true);
        if (v < -16 || v > 16) fail("a swizzle parameter must be within -16..16");
        bms[static_cast<std::size_t>(k)] = static_cast<int>(v);
      }
      expect('>');
      if (bms[0] < 0 || bms[1] < 0) fail("Sw<B,M,S> needs B >= 0 and M >= 0");
      // CuTe's own requirement: the bits read and the bits changed do not
      // overlap, else the swizzle is not its own inverse.
      if (std::abs(bms[2]) < bms[0]) fail("Sw<B,M,S> needs |S| >= B, as CuTe's Swizzle does");
      out.swizzle = bms;
      skip();
      if (pos_ < text_.size() && text_[pos_] == 'o') {
        ++pos_;
      } else if (text_.substr(pos_, 3) == "\xE2\x88\x98") {  // the composition sign
        pos_ += 3;
      } else {
        fail("expected 'o' (composition) after the swizzle");
      }
    }
    const Tree shape = tree(), stride = (expect(':'), tree());
    skip();
    if (pos_ != text_.size()) fail("unexpected text after the layout");
    if (!congruent(shape, stride)) fail("the shape and the stride have different nesting");
    const auto add_mode = [&](const Tree& s, const Tree& d) {
      std::vector<Leaf> leaves;
      flatten(s, d, leaves);
      out.modes.push_back(std::move(leaves));
    };
    if (shape.leaf) {
      add_mode(shape, stride);
    } else {
      for (std::size_t k = 0; k < shape.children.size(); ++k) add_mode(shape.children[k], stride.children[k]);
    }
    std::int64_t total = 1;
    for (const auto& mode : out.modes)
      for (const Leaf& l : mode) {
        if (l.size < 1) fail("a size must be at least 1");
        if (l.stride < 0) fail("negative strides are not supported");
        if (l.stride > kMaxStride) fail("a stride above 2^31");
        total = checked_mul(total, l.size, "the layout's size");
        if (total > kMaxSize) fail("the layout has more than 2^20 elements");
      }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw LegoError(Span{pos_, pos_ + 1}, "column " + std::to_string(pos_ + 1) + ": " + why +
                                              " (CuTe notation: (4,8):(8,1), ((2,4),2):((1,8),4), Sw<3,4,3> o ...)");
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool peek_word(std::string_view w) const { return text_.substr(pos_, w.size()) == w; }
  void expect(char c) {
    skip();
    if (pos_ >= text_.size() || text_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::int64_t integer(bool sign) {
    skip();
    bool negative = false;
    if (sign && pos_ < text_.size() && text_[pos_] == '-') negative = true, ++pos_;
    // CuTe prints static integers as _4; both read as the number.
    if (pos_ < text_.size() && text_[pos_] == '_') ++pos_;
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) fail("expected a number");
    std::int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + (text_[pos_++] - '0');
      if (v > (std::int64_t{1} << 40)) fail("a number is too large");
    }
    return negative ? -v : v;
  }
  Tree tree(int depth = 0) {
    if (depth > 16) fail("nested too deeply");
    skip();
    Tree t;
    if (pos_ < text_.size() && text_[pos_] == '(') {
      ++pos_;
      t.leaf = false;
      do {
        t.children.push_back(tree(depth + 1));
        skip();
      } while (pos_ < text_.size() && text_[pos_] == ',' && ++pos_);
      expect(')');
      if (t.children.size() > 64) fail("a tuple of more than 64 modes");
      return t;
    }
    t.value = integer(true);
    return t;
  }
  static bool congruent(const Tree& a, const Tree& b) {
    if (a.leaf != b.leaf || a.children.size() != b.children.size()) return false;
    for (std::size_t k = 0; k < a.children.size(); ++k)
      if (!congruent(a.children[k], b.children[k])) return false;
    return true;
  }
  static void flatten(const Tree& s, const Tree& d, std::vector<Leaf>& out) {
    if (s.leaf) return out.push_back({s.value, d.value});
    for (std::size_t k = 0; k < s.children.size(); ++k) flatten(s.children[k], d.children[k], out);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

std::string mode_text(const std::vector<Leaf>& leaves, bool strides) {
  const auto one = [&](const Leaf& l) { return std::to_string(strides ? l.stride : l.size); };
  if (leaves.size() == 1) return one(leaves[0]);
  std::string s = "(";
  for (std::size_t k = 0; k < leaves.size(); ++k) s += (k ? "," : "") + one(leaves[k]);
  return s + ")";
}

std::string coordinate_text(const std::vector<std::int64_t>& c) {
  std::string s = "(";
  for (std::size_t k = 0; k < c.size(); ++k) s += (k ? ", " : "") + std::to_string(c[k]);
  return s + ")";
}

// Row-major linear index -> one coordinate per top-level mode.
std::vector<std::int64_t> unflatten(std::int64_t x, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    c[k] = x % shape[k];
    x /= shape[k];
  }
  return c;
}

// The offset expression of one mode's coordinate `var`: its leaves split colexicographically.
std::string mode_expression(const std::vector<Leaf>& leaves, const std::string& var) {
  std::string sum;
  std::int64_t weight = 1;
  for (const Leaf& l : leaves) {
    if (l.size > 1 && l.stride != 0) {
      std::string digit = var;
      if (weight > 1) digit = "(" + digit + " // " + std::to_string(weight) + ")";
      if (weight * l.size < std::accumulate(
                                leaves.begin(), leaves.end(), std::int64_t{1}, [](std::int64_t a, const Leaf& b) { return a * b.size; }))
        digit = "(" + digit + " % " + std::to_string(l.size) + ")";
      sum += (sum.empty() ? "" : " + ") + (l.stride == 1 ? digit : digit + "*" + std::to_string(l.stride));
    }
    weight *= l.size;
  }
  return sum.empty() ? "0" : sum;
}

// CuTe's Swizzle<B,M,S>: the B bits at M + max(0, S) are XORed into the
// B bits S places lower (S < 0: |S| places higher), x ^ shift(x & read, S).
std::string swizzle_expression(const std::array<int, 3>& bms, const std::string& x) {
  const auto [b, m, s] = bms;
  const std::int64_t bits = (std::int64_t{1} << b) - 1;
  if (s >= 0) return "(" + x + ") ^ (((" + x + ") >> " + std::to_string(s) + ") & " + std::to_string(bits << m) + ")";
  return "(" + x + ") ^ (((" + x + ") & " + std::to_string(bits << m) + ") << " + std::to_string(-s) + ")";
}

}  // namespace

Layout parse(std::string_view text) { return Parser(text).layout(); }

std::string to_string(const Layout& layout) {
  std::string shape, stride;
  for (std::size_t k = 0; k < layout.modes.size(); ++k) {
    shape += (k ? "," : "") + mode_text(layout.modes[k], false);
    stride += (k ? "," : "") + mode_text(layout.modes[k], true);
  }
  if (layout.modes.size() != 1) shape = "(" + shape + ")", stride = "(" + stride + ")";
  std::string s = shape + ":" + stride;
  if (layout.swizzle)
    s = "Sw<" + std::to_string((*layout.swizzle)[0]) + "," + std::to_string((*layout.swizzle)[1]) + "," +
        std::to_string((*layout.swizzle)[2]) + "> o " + s;
  return s;
}

std::vector<std::int64_t> shape(const Layout& layout) {
  std::vector<std::int64_t> out;
  for (const auto& mode : layout.modes) {
    std::int64_t n = 1;
    for (const Leaf& l : mode) n *= l.size;
    out.push_back(n);
  }
  return out;
}

std::int64_t size(const Layout& layout) {
  std::int64_t n = 1;
  for (auto e : shape(layout)) n *= e;
  return n;
}

std::int64_t swizzle(const std::array<int, 3>& bms, std::int64_t x) {
  const auto [b, m, s] = bms;  // each within -16..16, |S| >= B (parse)
  const std::uint64_t bits = (std::uint64_t{1} << b) - 1, u = static_cast<std::uint64_t>(x);
  if (s >= 0) return static_cast<std::int64_t>(u ^ ((u >> s) & (bits << m)));
  return static_cast<std::int64_t>(u ^ ((u & (bits << m)) << -s));
}

std::int64_t offset(const Layout& layout, const std::vector<std::int64_t>& coordinate) {
  std::int64_t x = 0;
  for (std::size_t k = 0; k < layout.modes.size(); ++k) {
    std::int64_t c = coordinate.at(k);
    for (const Leaf& l : layout.modes[k]) {
      x += (c % l.size) * l.stride;
      c /= l.size;
    }
  }
  return layout.swizzle ? swizzle(*layout.swizzle, x) : x;
}

namespace {

std::string extents_text(const std::vector<std::int64_t>& dims, const char* separator) {
  std::string out;
  for (std::size_t k = 0; k < dims.size(); ++k) out += (k ? separator : "") + std::to_string(dims[k]);
  return out;
}

// Throws naming two coordinates that share an offset; true when the offsets
// are exactly [0, size), false when injective with padding.
bool onto_or_throw(const Layout& layout) {
  const std::vector<std::int64_t> dims = shape(layout);
  const std::int64_t n = size(layout);
  std::vector<std::pair<std::int64_t, std::int64_t>> at;  // (offset, linear index)
  at.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) at.push_back({offset(layout, unflatten(i, dims)), i});
  std::sort(at.begin(), at.end());
  for (std::size_t k = 1; k < at.size(); ++k)
    if (at[k].first == at[k - 1].first)
      throw LegoError("not a layout LEGO can hold: coordinates " + coordinate_text(unflatten(at[k - 1].second, dims)) + " and " +
                      coordinate_text(unflatten(at[k].second, dims)) + " both map to offset " + std::to_string(at[k].first) +
                      " (a broadcast or an overlap is neither a bijection nor injective)");
  return at.back().first == static_cast<std::int64_t>(n) - 1;
}

// The CuTe formula itself as a GenP over the top-level modes: the offset
// (swizzled) and, when onto, its inverse (undo the swizzle, which is its own
// inverse, then read each leaf's digit). Apply only when not onto.
std::string genp_piece(const Layout& layout, bool onto) {
  const std::vector<std::int64_t> dims = shape(layout);
  const std::string group = extents_text(dims, ", ");
  std::string vars, affine;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const std::string var = "i" + std::to_string(k);
    vars += (k ? ", " : "") + var;
    const std::string term = mode_expression(layout.modes[k], var);
    if (term != "0") affine += (affine.empty() ? "" : " + ") + term;
  }
  if (affine.empty()) affine = "0";
  const std::string apply = layout.swizzle ? swizzle_expression(*layout.swizzle, affine) : affine;
  std::string genp = "GenP([" + group + "], lambda " + vars + ": " + apply;
  if (onto) {
    const std::string y = layout.swizzle ? swizzle_expression(*layout.swizzle, "x") : "x";
    std::string coords;
    for (std::size_t k = 0; k < dims.size(); ++k) {
      std::string c;
      std::int64_t weight = 1;
      for (const Leaf& l : layout.modes[k]) {
        if (l.size > 1) {
          const std::string digit =
              "((" + y + ") // " + std::to_string(std::max<std::int64_t>(l.stride, 1)) + " % " + std::to_string(l.size) + ")";
          c += (c.empty() ? "" : " + ") + (weight == 1 ? digit : digit + "*" + std::to_string(weight));
        }
        weight *= l.size;
      }
      coords += (k ? ", " : "") + (c.empty() ? std::string("0") : c);
    }
    genp += ", lambda x: (" + coords + (dims.size() == 1 ? ",)" : ")");
  }
  return genp + ")";
}

}  // namespace

std::string to_lego_piece(const Layout& layout) {
  const bool onto = onto_or_throw(layout);
  const std::vector<std::int64_t> dims = shape(layout);
  if (onto && !layout.swizzle) {
    // Row- or column-major over the top-level modes, one leaf each.
    bool single = true;
    for (const auto& mode : layout.modes) single = single && mode.size() == 1;
    if (single) {
      std::int64_t row = 1, col = 1;
      bool is_row = true, is_col = true;
      for (std::size_t k = dims.size(); k-- > 0;) {
        is_row = is_row && (dims[k] == 1 || layout.modes[k][0].stride == row);
        row *= dims[k];
      }
      for (std::size_t k = 0; k < dims.size(); ++k) {
        is_col = is_col && (dims[k] == 1 || layout.modes[k][0].stride == col);
        col *= dims[k];
      }
      if (is_row) return "Row(" + extents_text(dims, ",") + ")";
      if (is_col) return "Col(" + extents_text(dims, ",") + ")";
    }
  }
  return genp_piece(layout, onto);
}

std::string to_lego(const Layout& layout) {
  const bool onto = onto_or_throw(layout);
  const std::vector<std::int64_t> dims = shape(layout);
  const std::string group = extents_text(dims, ", ");
  const std::string tail = ").GroupBy([(" + group + (dims.size() == 1 ? ",)])" : ")])");
  if (onto && !layout.swizzle) {
    // A digit permutation: each mode's leaves, most significant first, ordered by stride.
    std::vector<Leaf> digits;
    for (const auto& mode : layout.modes) {
      std::vector<Leaf> leaves;
      for (const Leaf& l : mode)
        if (l.size > 1) leaves.push_back(l);
      if (leaves.empty()) leaves.push_back({1, 0});
      digits.insert(digits.end(), leaves.rbegin(), leaves.rend());
    }
    std::vector<std::size_t> perm(digits.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return digits[a].stride > digits[b].stride; });
    std::string sizes, order;
    for (std::size_t k = 0; k < digits.size(); ++k) {
      sizes += (k ? "," : "") + std::to_string(digits[k].size);
      order += (k ? "," : "") + std::to_string(perm[k]);
    }
    std::vector<std::size_t> identity(perm.size()), reversed(perm.size());
    std::iota(identity.begin(), identity.end(), 0);
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    const bool top = digits.size() == dims.size();
    if (top && perm == identity) return "OrderBy(Row(" + sizes + ")" + tail;
    if (top && perm == reversed) return "OrderBy(Col(" + sizes + ")" + tail;
    return "OrderBy(RegP([" + sizes + "], [" + order + "])" + tail;
  }
  // A swizzle, or padding (injective but not onto, as (32,32):(33,1),
  // becomes an apply-only GenP whose footprint is its largest offset + 1).
  return "OrderBy(" + genp_piece(layout, onto) + tail;
}

std::optional<Layout> from_table(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& table) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  if (dims.empty() || static_cast<std::int64_t>(table.size()) != n || table[0] != 0) return std::nullopt;
  Layout out;
  std::int64_t step = n;  // row-major: the last dimension moves by 1
  for (std::size_t k = 0; k < dims.size(); ++k) {
    step /= dims[k];
    const auto along = [&](std::int64_t t) { return table[static_cast<std::size_t>(t * step)]; };
    std::vector<Leaf> leaves;
    std::int64_t remaining = dims[k], scale = 1;  // along(scale * u) for u < remaining
    while (remaining > 1) {
      const std::int64_t d = along(scale);
      std::int64_t run = 1;
      while (run < remaining && along(scale * run) == run * d) ++run;
      std::int64_t a = run;
      while (remaining % a != 0) --a;  // the longest run that divides what is left
      if (a == 1) return std::nullopt;
      leaves.push_back({a, d});
      scale *= a;
      remaining /= a;
    }
    if (leaves.empty()) leaves.push_back({1, 0});
    out.modes.push_back(std::move(leaves));
  }
  for (std::int64_t i = 0; i < n; ++i)
    if (offset(out, unflatten(i, dims)) != table[static_cast<std::size_t>(i)]) return std::nullopt;
  return out;
}

std::optional<Layout> from_table_maybe_swizzled(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& table) {
  std::optional<Layout> found = from_table(shape, table);
  for (int b = 1; !found && b <= 5; ++b)
    for (int m = 0; !found && m <= 5; ++m)
      for (int s = 1; !found && s <= 8; ++s) {
        std::vector<std::int64_t> under(table.size());
        for (std::size_t k = 0; k < table.size(); ++k) under[k] = swizzle({b, m, s}, table[k]);
        if ((found = from_table(shape, under))) found->swizzle = std::array<int, 3>{b, m, s};
      }
  return found;
}

}  // namespace lego::cute
