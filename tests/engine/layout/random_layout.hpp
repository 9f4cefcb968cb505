// Random layouts for property tests (rank up to 4, chains of up to 3
// OrderBy, TileBy depth up to 3, random library and user GenPs, ExpandBy),
// generated as text so the parser is exercised too. Extents of Row, Col,
// RegP and the closing may be written as symbols with a binding.
#pragma once

#include <rapidcheck.h>

#include <numeric>
#include <string>
#include <vector>

#include "expr/expr.hpp"

namespace lego::testing {

using Dims = std::vector<std::int64_t>;

// Uniform in [lo, hi): RapidCheck scales inRange by its size parameter, which
// would make the early cases mostly short chains without GenPs.
template <class T>
T uniform(T lo, T hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(lo, hi));
}
inline bool coin() { return uniform(0, 2) == 1; }

// Writes extents as literals, or (symbolic) as fresh symbols bound to the
// value, so the same layout can be derived with sizes known or unknown.
struct Extents {
  bool symbolic = false;
  Env bindings;
  std::string one(std::int64_t v) {
    if (!symbolic || !coin()) return std::to_string(v);
    const std::string name = "s" + std::to_string(bindings.size());
    bindings[name] = v;
    return name;
  }
  std::string list(const Dims& d) {
    std::string s;
    for (std::size_t k = 0; k < d.size(); ++k) s += (k ? "," : "") + one(d[k]);
    return s;
  }
};

inline std::int64_t product(const Dims& d) { return std::accumulate(d.begin(), d.end(), std::int64_t{1}, std::multiplies<>()); }

inline std::string csv(const Dims& d) {
  std::string s;
  for (std::size_t k = 0; k < d.size(); ++k) s += (k ? "," : "") + std::to_string(d[k]);
  return s;
}

// Splits n's prime factors at random into `count` extents (1s allowed).
inline Dims random_factorization(std::int64_t n, std::size_t count) {
  Dims out(count, 1);
  for (std::int64_t p = 2; n > 1; ++p)
    while (n % p == 0) {
      out[uniform<std::size_t>(0, count)] *= p;
      n /= p;
    }
  return out;
}

inline bool pow2(std::int64_t v) { return (v & (v - 1)) == 0; }

inline std::string random_genp(const Dims& d) {
  const std::int64_t size = product(d);
  std::vector<std::string> options = {"reverse", "lambda"};
  if (d.size() == 2) options.push_back("skew");
  if (d.size() == 2 && d[0] == d[1]) options.push_back("antidiag");
  if (std::all_of(d.begin(), d.end(), pow2)) options.push_back("morton");
  if (size % 8 == 0) options.push_back("swizzle(1,1,1)");
  if (size % 64 == 0) options.push_back("swizzle(3,0,3)");
  if (size % 6 == 0) options.push_back("cyclic(2,3)");
  if (size % 4 == 0) options.push_back("cyclic(1,4)");
  const std::string pick = options[uniform<std::size_t>(0, options.size())];
  if (pick != "lambda") return "GenP([" + csv(d) + "], " + pick + ")";
  // A user GenP: reverse of the row-major order, written out by hand.
  std::string apply = std::to_string(size - 1) + " - (", params, inv = "(";
  std::int64_t weight = size;
  for (std::size_t k = 0; k < d.size(); ++k) {
    weight /= d[k];
    params += (k ? ", " : "") + std::string(1, static_cast<char>('a' + k));
    apply += (k ? " + " : "") + std::string(1, static_cast<char>('a' + k)) + "*" + std::to_string(weight);
    inv += "(" + std::to_string(size - 1) + " - x) // " + std::to_string(weight) + " % " + std::to_string(d[k]) + ", ";
  }
  return "GenP([" + csv(d) + "], lambda " + params + ": " + apply + "), lambda x: " + inv + "))";
}

inline std::string random_piece(const Dims& d, Extents& ext) {
  switch (uniform(0, 4)) {
    case 0:
      return "Row(" + ext.list(d) + ")";
    case 1:
      return "Col(" + ext.list(d) + ")";
    case 2: {
      std::vector<int> perm(d.size());
      std::iota(perm.begin(), perm.end(), 0);
      for (std::size_t k = perm.size(); k > 1; --k) std::swap(perm[k - 1], perm[uniform<std::size_t>(0, k)]);
      std::string p;
      for (std::size_t k = 0; k < perm.size(); ++k) p += (k ? "," : "") + std::to_string(perm[k]);
      return "RegP([" + ext.list(d) + "],[" + p + "])";
    }
    default:
      return random_genp(d);
  }
}

// An OrderBy of `pieces` pieces, each of rank `rank`, over n elements.
inline std::string random_orderby(std::int64_t n, std::size_t pieces, std::size_t rank, Extents& ext) {
  const Dims dims = random_factorization(n, pieces * rank);
  std::string s = "OrderBy(";
  for (std::size_t p = 0; p < pieces; ++p)
    s += (p ? ", " : "") + random_piece(Dims(dims.begin() + p * rank, dims.begin() + (p + 1) * rank), ext);
  return s + ")";
}

// allow_expand: sometimes narrow a tiled layout with ExpandBy to a random
// box within its untiled extents. ext decides how extents are written.
inline std::string random_layout(bool allow_expand, Extents& ext) {
  const bool tile = coin();
  Dims untiled;
  std::string closing;
  std::int64_t n = 1;
  if (tile) {
    const int d = uniform(1, 3);
    const int q = uniform(1, d == 1 ? 4 : 3);  // rank d*q <= 4, depth <= 3
    closing = ".TileBy(";
    untiled.assign(static_cast<std::size_t>(d), 1);
    for (int h = 0; h < q; ++h) {
      Dims level;
      for (int k = 0; k < d; ++k) level.push_back(uniform<std::int64_t>(1, 5));
      for (int k = 0; k < d; ++k) untiled[k] *= level[k];
      n *= product(level);
      closing += (h ? ",[" : "[") + ext.list(level) + "]";
    }
    closing += ")";
  } else {
    const int rank = uniform(1, 5);
    Dims shape;
    for (int k = 0; k < rank; ++k) shape.push_back(uniform<std::int64_t>(1, 7));
    n = product(shape);
    // Split the shape into groups of consecutive extents.
    closing = ".GroupBy([(";
    for (int k = 0; k < rank; ++k) {
      if (k && coin())
        closing += "),(";
      else if (k)
        closing += ",";
      closing += ext.one(shape[k]);
    }
    closing += ")])";
  }
  std::string chain;
  const int m = uniform(1, 4);
  for (int k = 0; k < m; ++k) chain += (k ? "." : "") + random_orderby(n, uniform<std::size_t>(1, 4), uniform<std::size_t>(1, 4), ext);
  if (!tile || !allow_expand || !coin()) return chain + closing;
  Dims original;
  for (auto n_k : untiled) original.push_back(uniform<std::int64_t>(1, n_k + 1));
  return "ExpandBy(" + chain + closing + ", [" + csv(original) + "])";
}

inline std::string random_layout(bool allow_expand = false) {
  Extents literal;
  return random_layout(allow_expand, literal);
}

}  // namespace lego::testing
