// Each library GenP is a bijection with a matching inverse at several sizes,
// and rejects the sizes it is not defined for with a located diagnostic.
#include "layout/genp.hpp"

#include <gtest/gtest.h>

#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/shape.hpp"
#include "layout/verify.hpp"

namespace lego {
namespace {

GenPSpec library(const std::string& name, std::vector<std::int64_t> params = {}) {
  GenPSpec g;
  g.library = name;
  g.has_param_list = !params.empty();
  for (auto p : params) g.params.push_back(constant(p));
  return g;
}

void expect_bijection(const GenPSpec& spec, const std::vector<std::int64_t>& dims) {
  SCOPED_TRACE(spec.library + " dims " + index_text(dims.data(), dims.size()));
  const GenPPtr f = make_genp(spec, dims, {}, {});
  MapUnderTest m;
  m.shape = dims;
  m.range = f->size();
  m.apply = [&](const std::int64_t* i) { return f->apply(i); };
  m.inv = [&](std::int64_t x, std::int64_t* i) { f->inv(x, i); };
  const auto r = check_bijective(m);
  EXPECT_TRUE(r.checked);
  EXPECT_TRUE(r.bijective) << r.evidence;
}

TEST(GenPLibrary, AntiDiagIsBijectiveAtSeveralSizes) {
  for (std::int64_t n : {1, 2, 3, 5, 8, 17, 64, 257}) expect_bijection(library("antidiag"), {n, n});
}

TEST(GenPLibrary, AntiDiagOrdersByDiagonalThenRow) {
  const GenPPtr f = make_genp(library("antidiag"), {3, 3}, {}, {});
  const std::int64_t order[][2] = {{0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {2, 0}, {1, 2}, {2, 1}, {2, 2}};
  for (std::int64_t x = 0; x < 9; ++x) EXPECT_EQ(f->apply(order[x]), x);
}

TEST(GenPLibrary, ReverseIsBijective) {
  expect_bijection(library("reverse"), {7});
  expect_bijection(library("reverse"), {3, 4});
  expect_bijection(library("reverse"), {2, 3, 5});
}

TEST(GenPLibrary, MortonIsBijectiveAndInterleaves) {
  expect_bijection(library("morton"), {8, 8});
  expect_bijection(library("morton"), {4, 16});
  expect_bijection(library("morton"), {2, 4, 8});
  const GenPPtr f = make_genp(library("morton"), {4, 4}, {}, {});
  const std::int64_t i[2] = {1, 1}, j[2] = {2, 0}, k[2] = {3, 3};
  EXPECT_EQ(f->apply(i), 3);  // i0 j0 -> bits 1,0
  EXPECT_EQ(f->apply(j), 8);  // i1 -> bit 3
  EXPECT_EQ(f->apply(k), 15);
}

TEST(GenPLibrary, SwizzleMatchesCuteAndIsBijective) {
  expect_bijection(library("swizzle", {3, 0, 3}), {8, 8});
  expect_bijection(library("swizzle", {2, 2, 3}), {32, 32});
  expect_bijection(library("swizzle", {3, 3, 3}), {64, 64});
  // CuTe Swizzle<3,0,3> on an 8x8 tile: column ^= row.
  const GenPPtr f = make_genp(library("swizzle", {3, 0, 3}), {8, 8}, {}, {});
  for (std::int64_t r = 0; r < 8; ++r)
    for (std::int64_t c = 0; c < 8; ++c) {
      const std::int64_t idx[2] = {r, c};
      EXPECT_EQ(f->apply(idx), r * 8 + (c ^ r));
    }
}

TEST(GenPLibrary, SkewAndCyclicAreBijective) {
  for (std::int64_t n : {1, 3, 8}) expect_bijection(library("skew"), {5, n});
  expect_bijection(library("cyclic", {2, 3}), {12});
  expect_bijection(library("cyclic", {4, 2}), {4, 8});
  expect_bijection(library("cyclic", {1, 1}), {5});
}

TEST(GenPLibrary, CyclicDistributesBlocksRoundRobin) {
  const GenPPtr f = make_genp(library("cyclic", {2, 3}), {12}, {}, {});
  // Owner 0 holds global blocks 0 and 3: elements 0,1,6,7 come first.
  const std::int64_t g[] = {0, 1, 6, 7, 2};
  const std::int64_t expect[] = {0, 1, 2, 3, 4};
  for (int k = 0; k < 5; ++k) EXPECT_EQ(f->apply(&g[k]), expect[k]);
}

TEST(GenPLibrary, RejectsUnsupportedShapesWithLocation) {
  const char* bad[] = {
      "OrderBy(GenP([3,4], antidiag)).GroupBy([(3,4)])",       "OrderBy(GenP([3,4], morton)).GroupBy([(3,4)])",
      "OrderBy(GenP([4,4], swizzle(3,0,3))).GroupBy([(4,4)])", "OrderBy(GenP([10], cyclic(4,2))).GroupBy([(10,)])",
      "OrderBy(GenP([4,4], blocky)).GroupBy([(4,4)])",         "OrderBy(GenP([4,4,4], skew)).GroupBy([(4,4,4)])",
  };
  for (const char* text : bad) {
    SCOPED_TRACE(text);
    try {
      make_plan(parse_layout(text), {});
      ADD_FAILURE() << "accepted";
    } catch (const LegoError& e) {
      // The diagnostic points into the GenP piece, not at the whole layout.
      const std::string_view t(text);
      EXPECT_TRUE(e.diagnostic().span.known());
      EXPECT_GE(e.diagnostic().span.begin, 8u);
      EXPECT_LE(e.diagnostic().span.end, t.find(")).") + 1);
    }
  }
}

TEST(UserGenP, LambdaPairEvaluatesAndChecks) {
  const Plan p = make_plan(
      parse_layout("OrderBy(GenP([n,n], lambda i, j: i*n + (i+j)%n, lambda x: (x//n, (x%n - x//n) % n))).GroupBy([(n,n)])"), {{"n", 5}});
  EXPECT_TRUE(check_bijective(p).bijective);
  EXPECT_EQ(p.apply_checked({1, 4}), 5);
}

TEST(UserGenP, NonBijectiveReportsCollidingPair) {
  try {
    make_plan(parse_layout("OrderBy(GenP([4], lambda i: i // 2, lambda x: (2*x,))).GroupBy([(4,)])"), {});
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(e.diagnostic().message.find("apply(0) = apply(1) = 0"), std::string::npos) << e.diagnostic().message;
  }
}

TEST(UserGenP, WrongInverseReportsFirstMismatch) {
  try {
    make_plan(parse_layout("OrderBy(GenP([2,3], lambda i, j: j*2 + i, lambda x: (x//3, x%3))).GroupBy([(2,3)])"), {});
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(e.diagnostic().message.find("inv(apply(0,1))"), std::string::npos) << e.diagnostic().message;
  }
}

TEST(UserGenP, OutOfRangeReportsIndex) {
  try {
    make_plan(parse_layout("OrderBy(GenP([4], lambda i: i + 1, lambda x: (x - 1,))).GroupBy([(4,)])"), {});
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(e.diagnostic().message.find("apply(3) = 4 is outside [0, 4)"), std::string::npos) << e.diagnostic().message;
  }
}

// The spec's even mapping i -> 2i: apply-only, and the memory it needs is
// its largest offset + 1, not its size.
TEST(UserGenP, ApplyOnlyLayoutsNeedTheirFootprint) {
  const Plan p = make_plan(parse_layout("OrderBy(GenP([4], lambda i: 2*i)).GroupBy([(4,)])"), {});
  EXPECT_EQ(p.size(), 4);
  EXPECT_EQ(p.physical_size(), 7);
  EXPECT_EQ(p.apply_checked({3}), 6);
  try {
    make_plan(parse_layout("OrderBy(GenP([4], lambda i: i - 1)).GroupBy([(4,)])"), {});
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(e.diagnostic().message.find("apply(0) = -1 is negative"), std::string::npos) << e.diagnostic().message;
  }
}

TEST(UserGenP, ApplyOnlyBroadcastIsAllowedOnlyAlone) {
  const Plan p = make_plan(parse_layout("OrderBy(GenP([4,4], lambda i, j: j)).GroupBy([(4,4)])"), {});
  EXPECT_FALSE(p.has_inverse());
  EXPECT_EQ(p.apply_checked({3, 2}), 2);
  EXPECT_THROW(p.inv_checked(0), LegoError);
  EXPECT_THROW(make_plan(parse_layout("OrderBy(Row(2,2), GenP([2,2], lambda i, j: j)).GroupBy([(4,4)])"), {}), LegoError);
  EXPECT_THROW(make_plan(parse_layout("OrderBy(GenP([4,4], lambda i, j: j)).OrderBy(Row(4,4)).GroupBy([(4,4)])"), {}), LegoError);
}

}  // namespace
}  // namespace lego
