// The compiled, fused plan against the literal spec evaluator, and the
// fusion itself: tiled Row/Col layouts must become one step.
#include <gtest/gtest.h>

#include "engine/layout/reference.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/verify.hpp"

namespace lego {
namespace {

using testing::Index;

Plan plan_of(const std::string& text, const Env& env = {}) { return make_plan(parse_layout(text), env); }

void expect_matches_reference(const Plan& p) {
  const BoundLayout& l = p.layout();
  Index idx(l.shape.size(), 0);
  std::vector<std::int64_t> all(static_cast<std::size_t>(p.size()));
  p.apply_all(all.data());
  for (std::int64_t n = 0; n < p.size(); ++n) {
    const Index i = testing::unflat(n, l.shape);
    ASSERT_EQ(all[n], testing::reference_apply(l, i)) << "apply at flat " << n;
  }
  if (!p.has_inverse()) return;
  for (std::int64_t x = 0; x < p.physical_size(); ++x) ASSERT_EQ(p.inv_checked(x), testing::reference_inv(l, x)) << "inv at " << x;
}

TEST(Plan, TiledRowMajorFusesToOneMultiplyAddPerCoordinate) {
  const Plan p = plan_of("OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3,[B]*3)", {{"N", 64}, {"B", 8}});
  ASSERT_EQ(p.apply_steps().size(), 1u) << p.describe();
  const Step& s = p.apply_steps()[0];
  EXPECT_TRUE(s.linear());
  EXPECT_EQ(s.digits.size(), 6u) << p.describe();  // one digit per coordinate
  EXPECT_EQ(p.classify(), LayoutClass::Affine);
  EXPECT_EQ(p.inv_steps().size(), 1u) << p.describe();
  expect_matches_reference(p);
}

TEST(Plan, GenPStepAbsorbsTheLinearStepsBeforeIt) {
  const Plan p = plan_of("OrderBy(Row(4,4), Row(2,2), GenP([8,8], swizzle(3,0,3))).TileBy([4,4],[2,2],[8,8])");
  ASSERT_EQ(p.apply_steps().size(), 1u) << p.describe();
  EXPECT_EQ(p.apply_steps()[0].calls.size(), 1u);
  EXPECT_EQ(p.classify(), LayoutClass::General);
  expect_matches_reference(p);
}

TEST(Plan, NonChainingRadicesStayAsSeparateSteps) {
  const Plan p = plan_of("OrderBy(Row(2,3)).OrderBy(Row(3,2)).GroupBy([(6,)])");
  EXPECT_EQ(p.apply_steps().size(), 1u) << p.describe();  // pure Row chains compose to identity
  // Col(3,2) writes boundaries {1,3,6}; the next Col(3,2) reads {1,2,6}: 2 does not divide 3.
  const Plan q = plan_of("OrderBy(Col(3,2)).OrderBy(Col(3,2)).GroupBy([(6,)])");
  EXPECT_GE(q.apply_steps().size(), 2u) << q.describe();
  EXPECT_EQ(q.classify(), LayoutClass::QuasiAffine);
  expect_matches_reference(p);
  expect_matches_reference(q);
}

TEST(Plan, ComposeRefinesMixedRadices) {
  // first: x in [0,12) as digits (4 low, 3 high) written transposed; second: reads [0,12) as (2,6).
  Step first;
  first.digits = {{4, 3, 0, 2}, {3, 1, 0, -1}};
  first.coord_end = {2};
  Step second;
  second.digits = {{2, 5, 0, 1}, {6, 1, 0, -1}};
  second.coord_end = {1};
  Step out;
  // boundaries {1,3,12} and {1,2,12} do not chain: 2 does not divide 3.
  EXPECT_FALSE(compose(first, second, out));
  second.digits = {{3, 4, 0, -1}, {4, 1, 0, 2}};
  ASSERT_TRUE(compose(first, second, out));
  // Evaluate both ways for every input.
  for (std::int64_t x = 0; x < 12; ++x) {
    const std::int64_t mid = (x % 4) * 3 + x / 4;
    const std::int64_t expect = (mid % 3) * 4 + mid / 3;
    std::int64_t got = 0, v = x;
    for (int t = 0; t < out.coord_end[0]; ++t) {
      const auto& d = out.digits[t];
      const std::int64_t digit = t + 1 == out.coord_end[0] ? v : v % d.radix;
      v /= d.radix;
      got += digit * d.mult;
    }
    EXPECT_EQ(got, expect) << x;
  }
}

TEST(Plan, ChainsWithGenPMatchReference) {
  for (const char* text : {
           "OrderBy(RegP([2,2],[1,0]), GenP([3,3], antidiag)).OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])",
           "OrderBy(Row(3,2), GenP([2,4], skew)).OrderBy(Col(6,8)).OrderBy(Row(2,24)).GroupBy([(4,12)])",
           "OrderBy(GenP([4,4], morton), Row(3,1)).OrderBy(Col(3,4,4)).GroupBy([(12,4)])",
           "OrderBy(GenP([24], cyclic(2,3)), Row(2)).GroupBy([(6,8)])",
           "OrderBy(Row(2,2), Col(3,5), GenP([2,2], reverse)).TileBy([2,2],[3,5],[2,2])",
       }) {
    SCOPED_TRACE(text);
    const Plan p = plan_of(text);
    expect_matches_reference(p);
    EXPECT_TRUE(check_bijective(p).bijective);
  }
}

TEST(Plan, ExpandByDropsOutsideAndInvertsInside) {
  const Plan p = plan_of("ExpandBy(OrderBy(Row(3,3), Row(4,4)).TileBy([3,3],[4,4]), [10,10])");
  EXPECT_EQ(p.size(), 144);
  EXPECT_EQ(p.physical_size(), 100);
  // Tile (0,0), element (1,2): expanded physical = 6, i.e. row 0 col 6 in a 12-wide box -> 6 in a 10-wide box.
  EXPECT_EQ(p.apply_checked({0, 0, 1, 2}), 6);
  expect_matches_reference(p);
  const auto r = check_bijective(p);
  EXPECT_TRUE(r.bijective) << r.evidence;
  std::int64_t dropped = 0;
  std::vector<std::int64_t> all(144);
  p.apply_all(all.data());
  for (auto v : all) dropped += v == -1;
  EXPECT_EQ(dropped, 44);
}

TEST(Plan, CheckedAccessRejectsBadIndices) {
  const Plan p = plan_of("OrderBy(Row(4,4)).GroupBy([(4,4)])");
  EXPECT_THROW(p.apply_checked({1}), LegoError);
  EXPECT_THROW(p.apply_checked({1, 4}), LegoError);
  EXPECT_THROW(p.apply_checked({-1, 0}), LegoError);
  EXPECT_THROW(p.inv_checked(16), LegoError);
  EXPECT_EQ(p.apply_checked({3, 3}), 15);
}

TEST(Plan, ClassifiesAffineQuasiAffineGeneral) {
  EXPECT_EQ(plan_of("OrderBy(Col(4,6)).GroupBy([(4,6)])").classify(), LayoutClass::Affine);
  EXPECT_EQ(plan_of("OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])").classify(), LayoutClass::QuasiAffine);
  EXPECT_EQ(plan_of("OrderBy(GenP([4,4], antidiag)).GroupBy([(4,4)])").classify(), LayoutClass::General);
}

TEST(Plan, LargeLayoutsDoNotOverflowOrStall) {
  const Plan p = plan_of("OrderBy(Row(N//B,N//B), Row(B,B)).TileBy([N//B]*2,[B]*2)", {{"N", 1 << 20}, {"B", 1 << 10}});
  EXPECT_EQ(p.size(), std::int64_t{1} << 40);
  const std::int64_t x = p.apply_checked({1023, 1023, 1023, 1023});
  EXPECT_EQ(x, (std::int64_t{1} << 40) - 1);
  EXPECT_EQ(p.inv_checked(x), (Index{1023, 1023, 1023, 1023}));
  EXPECT_FALSE(check_bijective(p).checked);  // too large: says so instead of running for hours
}

}  // namespace
}  // namespace lego
