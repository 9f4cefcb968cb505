// RapidCheck properties on random layouts (rank up to 4, chains of up to 3
// OrderBy, TileBy depth up to 3, random library and user GenPs), generated as
// text so the parser and printer are exercised too.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <numeric>

#include "engine/layout/reference.hpp"
#include "layout/compile.hpp"
#include "layout/parse.hpp"
#include "layout/verify.hpp"

namespace lego {
namespace {

using Dims = std::vector<std::int64_t>;

// Uniform in [lo, hi): RapidCheck scales inRange by its size parameter, which
// would make the early cases mostly short chains without GenPs.
template <class T>
T uniform(T lo, T hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(lo, hi));
}
bool coin() { return uniform(0, 2) == 1; }

std::int64_t product(const Dims& d) { return std::accumulate(d.begin(), d.end(), std::int64_t{1}, std::multiplies<>()); }

std::string csv(const Dims& d) {
  std::string s;
  for (std::size_t k = 0; k < d.size(); ++k) s += (k ? "," : "") + std::to_string(d[k]);
  return s;
}

// Splits n's prime factors at random into `count` extents (1s allowed).
Dims random_factorization(std::int64_t n, std::size_t count) {
  Dims out(count, 1);
  for (std::int64_t p = 2; n > 1; ++p)
    while (n % p == 0) {
      out[uniform<std::size_t>(0, count)] *= p;
      n /= p;
    }
  return out;
}

bool pow2(std::int64_t v) { return (v & (v - 1)) == 0; }

std::string random_genp(const Dims& d) {
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

std::string random_piece(const Dims& d) {
  switch (uniform(0, 4)) {
    case 0:
      return "Row(" + csv(d) + ")";
    case 1:
      return "Col(" + csv(d) + ")";
    case 2: {
      std::vector<int> perm(d.size());
      std::iota(perm.begin(), perm.end(), 0);
      for (std::size_t k = perm.size(); k > 1; --k) std::swap(perm[k - 1], perm[uniform<std::size_t>(0, k)]);
      std::string p;
      for (std::size_t k = 0; k < perm.size(); ++k) p += (k ? "," : "") + std::to_string(perm[k]);
      return "RegP([" + csv(d) + "],[" + p + "])";
    }
    default:
      return random_genp(d);
  }
}

// An OrderBy of `pieces` pieces, each of rank `rank`, over n elements.
std::string random_orderby(std::int64_t n, std::size_t pieces, std::size_t rank) {
  const Dims dims = random_factorization(n, pieces * rank);
  std::string s = "OrderBy(";
  for (std::size_t p = 0; p < pieces; ++p)
    s += (p ? ", " : "") + random_piece(Dims(dims.begin() + p * rank, dims.begin() + (p + 1) * rank));
  return s + ")";
}

// allow_expand: sometimes narrow a tiled layout with ExpandBy to a random
// box within its untiled extents.
std::string random_layout(bool allow_expand = false) {
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
      closing += (h ? ",[" : "[") + csv(level) + "]";
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
      closing += std::to_string(shape[k]);
    }
    closing += ")])";
  }
  std::string chain;
  const int m = uniform(1, 4);
  for (int k = 0; k < m; ++k) chain += (k ? "." : "") + random_orderby(n, uniform<std::size_t>(1, 4), uniform<std::size_t>(1, 4));
  if (!tile || !allow_expand || !coin()) return chain + closing;
  Dims original;
  for (auto n_k : untiled) original.push_back(uniform<std::int64_t>(1, n_k + 1));
  return "ExpandBy(" + chain + closing + ", [" + csv(original) + "])";
}

RC_GTEST_PROP(LayoutProperties, ApplyIsAPermutationAndInvInvertsIt, ()) {
  const std::string text = random_layout();
  RC_LOG() << text << "\n";
  const Plan p = compile(parse_layout(text), {});
  std::vector<std::int64_t> apply(static_cast<std::size_t>(p.size()));
  p.apply_all(apply.data());
  std::vector<bool> seen(apply.size(), false);
  std::vector<std::int64_t> back(p.shape().size());
  for (std::int64_t n = 0; n < p.size(); ++n) {
    const std::int64_t x = apply[n];
    RC_ASSERT(x >= 0 && x < p.size());
    RC_ASSERT(!seen[x]);
    seen[x] = true;
    p.inv(x, back.data());  // inv(apply(i)) == i
    RC_ASSERT(back == testing::unflat(n, p.shape()));
  }
  for (std::int64_t x = 0; x < p.size(); ++x) {  // apply(inv(x)) == x
    p.inv(x, back.data());
    RC_ASSERT(p.apply(back.data()) == x);
  }
}

RC_GTEST_PROP(LayoutProperties, FusedPlanMatchesTheLiteralSpec, ()) {
  const std::string text = random_layout();
  RC_LOG() << text << "\n";
  const Plan p = compile(parse_layout(text), {});
  std::vector<std::int64_t> apply(static_cast<std::size_t>(p.size()));
  p.apply_all(apply.data());
  for (std::int64_t n = 0; n < p.size(); ++n) RC_ASSERT(apply[n] == testing::reference_apply(p.layout(), testing::unflat(n, p.shape())));
  std::vector<std::int64_t> back(p.shape().size());
  for (std::int64_t x = 0; x < p.size(); ++x) {
    p.inv(x, back.data());
    RC_ASSERT(back == testing::reference_inv(p.layout(), x));
  }
}

// Whole-table walks (apply_all / inv_all, with their fast paths) must agree
// with per-index evaluation, also under ExpandBy.
RC_GTEST_PROP(LayoutProperties, WholeTablesMatchPerIndexEvaluation, ()) {
  const std::string text = random_layout(/*allow_expand=*/true);
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  RC_TAG(text.find("ExpandBy") != std::string::npos ? "ExpandBy"
         : text.find("TileBy") != std::string::npos ? "TileBy"
                                                    : "GroupBy",
         "OrderBy x" + std::to_string(count("OrderBy")), count("GenP") ? (count("lambda") ? "user GenP" : "library GenP") : "RegP only");
  RC_LOG() << text << "\n";
  const Plan p = compile(parse_layout(text), {});
  std::vector<std::int64_t> apply(static_cast<std::size_t>(p.size()));
  p.apply_all(apply.data());
  std::vector<std::int64_t> idx(p.shape().size());
  for (std::int64_t n = 0; n < p.size(); ++n) {
    idx = testing::unflat(n, p.shape());
    RC_ASSERT(apply[n] == p.apply(idx.data()));
  }
  std::vector<std::int64_t> inv(static_cast<std::size_t>(p.physical_size()) * idx.size());
  p.inv_all(inv.data());
  for (std::int64_t x = 0; x < p.physical_size(); ++x) {
    p.inv(x, idx.data());
    RC_ASSERT(std::equal(idx.begin(), idx.end(), inv.begin() + x * static_cast<std::int64_t>(idx.size())));
  }
}

RC_GTEST_PROP(LayoutProperties, PrintParseRoundTrips, ()) {
  const std::string text = random_layout();
  const LayoutAst a = parse_layout(text);
  const std::string printed = print(a);
  RC_ASSERT(equal(a, parse_layout(printed)));
  RC_ASSERT(print(parse_layout(printed)) == printed);
}

}  // namespace
}  // namespace lego
