// RapidCheck properties on random layouts (rank up to 4, chains of up to 3
// OrderBy, TileBy depth up to 3, random library and user GenPs), generated as
// text so the parser and printer are exercised too.
#include <numeric>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/layout/reference.hpp"
#include "layout/compile.hpp"
#include "layout/parse.hpp"
#include "layout/verify.hpp"

namespace lego {
namespace {

using Dims = std::vector<std::int64_t>;

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
      out[*rc::gen::inRange<std::size_t>(0, count)] *= p;
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
  const std::string pick = *rc::gen::elementOf(options);
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
  switch (*rc::gen::inRange(0, 4)) {
    case 0: return "Row(" + csv(d) + ")";
    case 1: return "Col(" + csv(d) + ")";
    case 2: {
      std::vector<int> perm(d.size());
      std::iota(perm.begin(), perm.end(), 0);
      for (std::size_t k = perm.size(); k > 1; --k) std::swap(perm[k - 1], perm[*rc::gen::inRange<std::size_t>(0, k)]);
      std::string p;
      for (std::size_t k = 0; k < perm.size(); ++k) p += (k ? "," : "") + std::to_string(perm[k]);
      return "RegP([" + csv(d) + "],[" + p + "])";
    }
    default: return random_genp(d);
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

std::string random_layout() {
  const bool tile = *rc::gen::arbitrary<bool>();
  std::string closing;
  std::int64_t n = 1;
  if (tile) {
    const int d = *rc::gen::inRange(1, 3);
    const int q = *rc::gen::inRange(1, d == 1 ? 4 : 3);  // rank d*q <= 4, depth <= 3
    closing = ".TileBy(";
    for (int h = 0; h < q; ++h) {
      Dims level;
      for (int k = 0; k < d; ++k) level.push_back(*rc::gen::inRange<std::int64_t>(1, 5));
      n *= product(level);
      closing += (h ? ",[" : "[") + csv(level) + "]";
    }
    closing += ")";
  } else {
    const int rank = *rc::gen::inRange(1, 5);
    Dims shape;
    for (int k = 0; k < rank; ++k) shape.push_back(*rc::gen::inRange<std::int64_t>(1, 7));
    n = product(shape);
    // Split the shape into groups of consecutive extents.
    closing = ".GroupBy([(";
    for (int k = 0; k < rank; ++k) {
      if (k && *rc::gen::arbitrary<bool>()) closing += "),(";
      else if (k) closing += ",";
      closing += std::to_string(shape[k]);
    }
    closing += ")])";
  }
  std::string chain;
  const int m = *rc::gen::inRange(1, 4);
  for (int k = 0; k < m; ++k)
    chain += (k ? "." : "") + random_orderby(n, *rc::gen::inRange<std::size_t>(1, 4), *rc::gen::inRange<std::size_t>(1, 4));
  return chain + closing;
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

RC_GTEST_PROP(LayoutProperties, PrintParseRoundTrips, ()) {
  const std::string text = random_layout();
  const LayoutAst a = parse_layout(text);
  const std::string printed = print(a);
  RC_ASSERT(equal(a, parse_layout(printed)));
  RC_ASSERT(print(parse_layout(printed)) == printed);
}

}  // namespace
}  // namespace lego
