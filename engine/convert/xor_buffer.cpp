#include "convert/xor_buffer.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "expr/diagnostic.hpp"
#include "layout/parse.hpp"

namespace lego::convert {
namespace {

using Bits = std::uint32_t;  // a vector over GF(2): a tile index (at most 2^16 elements)

// A basis in echelon form, for rank and membership tests.
class Span {
 public:
  // Whether `x` was independent of the span (and is now in it).
  bool add(Bits x) {
    x = reduce(x);
    if (!x) return false;
    rows_.insert(std::upper_bound(rows_.begin(), rows_.end(), x, std::greater<>()), x);
    return true;
  }
  bool contains(Bits x) const { return reduce(x) == 0; }
  std::size_t dimension() const { return rows_.size(); }

 private:
  Bits reduce(Bits x) const {
    for (const Bits r : rows_) x = std::min(x, x ^ r);  // highest leading bit first: clears r's from x when x has it
    return x;
  }
  std::vector<Bits> rows_;  // distinct leading bits, in decreasing order
};

bool power_of_two(int n) { return n > 0 && std::has_single_bit(static_cast<unsigned>(n)); }

// The images of the thread bits and of the value bits when `tv` is linear
// over GF(2); empty when it is not.
struct LinearTv {
  std::vector<Bits> thread, value;
};
std::optional<LinearTv> linear(const atom::TvLayout& tv) {
  if (!power_of_two(tv.threads) || !power_of_two(tv.values)) return std::nullopt;
  LinearTv l;
  for (int t = 1; t < tv.threads; t <<= 1) l.thread.push_back(static_cast<Bits>(tv.element(t, 0)));
  for (int v = 1; v < tv.values; v <<= 1) l.value.push_back(static_cast<Bits>(tv.element(0, v)));
  if (tv.element(0, 0) != 0) return std::nullopt;
  for (int t = 0; t < tv.threads; ++t)
    for (int v = 0; v < tv.values; ++v) {
      Bits x = 0;
      for (std::size_t b = 0; b < l.thread.size(); ++b)
        if (t >> b & 1) x ^= l.thread[b];
      for (std::size_t b = 0; b < l.value.size(); ++b)
        if (v >> b & 1) x ^= l.value[b];
      if (x != tv.element(t, v)) return std::nullopt;
    }
  return l;
}

// The XOR of `images` over the bits of the expression `x`, as LEGO text.
std::string xor_text(const std::string& x, const std::vector<Bits>& images) {
  std::string text;
  for (std::size_t b = 0; b < images.size(); ++b) {
    if (!images[b]) continue;
    text += (text.empty() ? "" : " ^ ") + ("((" + x + " >> " + std::to_string(b) + ") & 1) * " + std::to_string(images[b]));
  }
  return text.empty() ? "0" : text;
}

// The prefix of `values` that both `a` and `b` start with, up to 16 bytes.
std::vector<Bits> common_prefix(const std::vector<Bits>& a, const std::vector<Bits>& b, int element_bytes) {
  std::vector<Bits> out;
  for (std::size_t k = 0; k < a.size() && k < b.size() && a[k] == b[k] && (2 << k) * element_bytes <= 16; ++k) out.push_back(a[k]);
  return out;
}

// What one side's accesses need of the buffer. Its phase's lanes must not
// conflict: for an access of 4 bytes or more, no two may differ only in the
// address bits below `low` (its vector) and above a 128-byte row; for a
// narrower one, lanes that differ only there must differ only within a bank
// word (the same word is read once for all of them). And a side that keeps a
// vector needs every other bit of its own (thread and further value bits) to
// stay clear of the vector's address bits, or its vectors lose alignment:
// the rest of the basis is drawn from `keep`, the span of those.
struct Side {
  std::vector<Bits> phase;
  int low = 0;
  bool narrow = false;  // accesses under 4 bytes
  std::optional<Span> keep;
};
Side side(const LinearTv& tv, const std::vector<Bits>& vector, int element_bytes, int threads) {
  std::size_t k = 0;
  while (k < vector.size() && k < tv.value.size() && vector[k] == tv.value[k]) ++k;
  const int access = (1 << k) * element_bytes, unit = std::max(access, 4);
  const int lanes = std::min(access <= 4 ? 32 : 128 / access, threads);
  Side s;
  s.phase.assign(tv.thread.begin(), tv.thread.begin() + std::countr_zero(static_cast<unsigned>(lanes)));
  s.low = std::countr_zero(static_cast<unsigned>(unit / element_bytes));
  s.narrow = access < 4;
  if (k > 0) {
    s.keep.emplace();
    for (const Bits x : tv.thread) s.keep->add(x);
    for (std::size_t b = k; b < tv.value.size(); ++b) s.keep->add(tv.value[b]);
  }
  return s;
}

std::size_t dimension(const std::vector<Bits>& a, const std::vector<Bits>& b = {}) {
  Span s;
  for (const Bits x : a) s.add(x);
  for (const Bits x : b) s.add(x);
  return s.dimension();
}

// Whether the basis so far (`basis` from address bit 0 up, `high` above a
// row) lets each side's phase land without conflict.
bool keeps_apart(const std::vector<Bits>& basis, const std::vector<Bits>& high, const std::array<Side, 2>& sides) {
  for (const Side& s : sides) {
    const std::vector<Bits> word(basis.begin(), basis.begin() + std::min<std::ptrdiff_t>(s.low, static_cast<std::ptrdiff_t>(basis.size())));
    std::vector<Bits> off_slots = word;
    off_slots.insert(off_slots.end(), high.begin(), high.end());
    // dim(P meet X) = dim P + dim X - dim(P + X)
    const auto meet = [&](const std::vector<Bits>& x) { return dimension(s.phase) + dimension(x) - dimension(s.phase, x); };
    if (s.narrow ? meet(off_slots) != meet(word) : meet(off_slots) != 0) return false;
  }
  return true;
}

// The buffer whose lowest address bits are `vector`, or nullopt.
std::optional<std::vector<Bits>> basis_for(const LinearTv& from, const LinearTv& to, const std::vector<Bits>& vector, int n,
                                           int element_bytes, int threads) {
  const std::array<Side, 2> sides{side(from, vector, element_bytes, threads), side(to, vector, element_bytes, threads)};
  const int row = std::min(n, std::countr_zero(128u / static_cast<unsigned>(element_bytes)));  // address bits within 128 bytes
  std::vector<Bits> order;
  for (Bits x = 1; x < (Bits{1} << n); ++x)
    if (std::all_of(sides.begin(), sides.end(), [&](const Side& s) { return !s.keep || s.keep->contains(x); })) order.push_back(x);
  std::stable_sort(order.begin(), order.end(), [](Bits a, Bits b) { return std::popcount(a) < std::popcount(b); });
  const auto independent = [](const std::vector<Bits>& a, const std::vector<Bits>& b, Bits x) {
    Span s;
    for (const Bits y : a) s.add(y);
    for (const Bits y : b) s.add(y);
    return s.add(x);
  };
  std::vector<Bits> basis = vector, high;
  if (!keeps_apart(basis, high, sides)) return std::nullopt;
  // The bits below either side's `low`, above the vector (a narrow access's word).
  const int low = std::min(row, std::max(sides[0].low, sides[1].low));
  for (const Bits x : order) {
    if (static_cast<int>(basis.size()) >= low) break;
    if (!independent(basis, high, x)) continue;
    basis.push_back(x);
    if (!keeps_apart(basis, high, sides)) basis.pop_back();
  }
  if (static_cast<int>(basis.size()) < low) return std::nullopt;
  // The bits above a row, fewest-bit vectors first: as row-major as the conflicts allow.
  for (const Bits x : order) {
    if (static_cast<int>(high.size()) == n - row) break;
    if (!independent(basis, high, x)) continue;
    high.push_back(x);
    if (!keeps_apart(basis, high, sides)) high.pop_back();
  }
  if (static_cast<int>(high.size()) != n - row) return std::nullopt;
  // The slots: the store side's phase lanes, then whatever completes the basis.
  std::vector<Bits> candidates;
  for (const Bits x : sides[0].phase)
    if (std::all_of(sides.begin(), sides.end(), [&](const Side& s) { return !s.keep || s.keep->contains(x); })) candidates.push_back(x);
  candidates.insert(candidates.end(), order.begin(), order.end());
  for (const Bits x : candidates)
    if (static_cast<int>(basis.size()) < row && independent(basis, high, x)) basis.push_back(x);
  basis.insert(basis.end(), high.begin(), high.end());
  if (static_cast<int>(basis.size()) != n) return std::nullopt;
  return basis;
}

// The LEGO text of the buffer whose address bit a holds tile index vector basis[a].
std::optional<std::string> buffer_text(const std::vector<Bits>& basis, int tile_rows, int tile_cols) {
  const int n = static_cast<int>(basis.size());
  // The address of each index bit: invert the basis (Gauss-Jordan on [basis | identity]).
  std::vector<Bits> rows(static_cast<std::size_t>(n)), inverse(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a) {
    rows[static_cast<std::size_t>(a)] = basis[static_cast<std::size_t>(a)];
    inverse[static_cast<std::size_t>(a)] = Bits{1} << a;
  }
  for (int bit = 0; bit < n; ++bit) {
    int pivot = -1;
    for (int r = bit; r < n && pivot < 0; ++r)
      if (rows[static_cast<std::size_t>(r)] >> bit & 1) pivot = r;
    if (pivot < 0) return std::nullopt;
    std::swap(rows[static_cast<std::size_t>(bit)], rows[static_cast<std::size_t>(pivot)]);
    std::swap(inverse[static_cast<std::size_t>(bit)], inverse[static_cast<std::size_t>(pivot)]);
    for (int r = 0; r < n; ++r)
      if (r != bit && (rows[static_cast<std::size_t>(r)] >> bit & 1)) {
        rows[static_cast<std::size_t>(r)] ^= rows[static_cast<std::size_t>(bit)];
        inverse[static_cast<std::size_t>(r)] ^= inverse[static_cast<std::size_t>(bit)];
      }
  }
  // inverse[bit] = the address of index bit `bit`; basis[a] = the index at address bit a.
  const std::string rows_text = std::to_string(tile_rows), cols_text = std::to_string(tile_cols);
  const std::string index = "(i * " + cols_text + " + j)", at = xor_text("x", basis);
  return "OrderBy(GenP([" + rows_text + ", " + cols_text + "], lambda i, j: " + xor_text(index, inverse) + ", lambda x: ((" + at + ") // " +
         cols_text + ", (" + at + ") % " + cols_text + "))).GroupBy([(" + rows_text + ", " + cols_text + ")])";
}

}  // namespace

std::vector<CandidateLayout> xor_buffers(const atom::TvLayout& from, const atom::TvLayout& to, int element_bytes) {
  std::vector<CandidateLayout> out;
  if (!power_of_two(from.rows) || !power_of_two(from.cols) || from.values != to.values) return out;
  const auto f = linear(from), t = linear(to);
  if (!f || !t) return out;
  const int n = std::countr_zero(static_cast<unsigned>(from.rows * from.cols));
  // The vector both sides can use, and each side's own (the other then
  // accesses narrower): fewer instructions on one side can beat a vector on
  // neither. Each at every width down to none: a narrower vector can leave
  // room for no conflict where the widest cannot.
  std::vector<std::pair<std::string, std::vector<Bits>>> vectors;
  for (const auto& [what, prefix] : {std::pair{std::string("both sides' vector"), common_prefix(f->value, t->value, element_bytes)},
                                     std::pair{std::string("FROM's vector"), common_prefix(f->value, f->value, element_bytes)},
                                     std::pair{std::string("TO's vector"), common_prefix(t->value, t->value, element_bytes)}})
    for (std::size_t k = prefix.size() + 1; k-- > 0;)
      vectors.push_back({k == 0 ? std::string("no vector") : what + " of " + std::to_string((1 << k) * element_bytes) + " bytes",
                         std::vector<Bits>(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(k))});
  std::set<std::vector<Bits>> made;
  for (const auto& [what, vector] : vectors) {
    const auto basis = basis_for(*f, *t, vector, n, element_bytes, from.threads);
    if (!basis || !made.insert(*basis).second) continue;
    const auto text = buffer_text(*basis, from.rows, from.cols);
    if (!text) continue;
    try {
      out.push_back({"xor built, " + what, "xor", parse_layout(*text)});
    } catch (const LegoError&) {
      // a text the language refuses would be a bug here; the other candidates still stand
    }
  }
  return out;
}

}  // namespace lego::convert
