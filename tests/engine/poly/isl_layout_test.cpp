// Bijectivity decided by ISL: proved for all values of unbound sizes where
// the layout is quasi-affine, refuted with a counterexample where an
// OrderBy's size differs for some values, and declined (never guessed)
// outside Presburger arithmetic. On random bound layouts, ISL agrees with
// the exhaustive numeric check whenever it decides.
#include "poly/isl_layout.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/layout/random_layout.hpp"
#include "expr/parser.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/verify.hpp"

namespace lego::poly {
namespace {

IslVerdict check(const char* layout, const Env& env = {}, const std::vector<const char*>& where = {}) {
  std::vector<Expr> constraints;
  for (const char* c : where) constraints.push_back(parse_expression(c));
  return isl_check_layout(parse_layout(layout), env, constraints);
}

TEST(IslLayout, ProvesBoundLayoutsAndTheirDerivedInverses) {
  for (const char* layout :
       {"OrderBy(Row(6,6)).GroupBy([(6,6)])", "OrderBy(Col(4,6)).GroupBy([(4,6)])", "OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])",
        "OrderBy(Row(4,4), Col(2,2)).TileBy([4,4],[2,2])", "OrderBy(Row(2,2), Row(2,2), Row(2,2)).TileBy([2,2],[2,2],[2,2])"}) {
    const IslVerdict v = check(layout);
    EXPECT_EQ(v.status, IslStatus::Bijective) << layout << ": " << v.evidence;
    EXPECT_TRUE(v.inverse_exact) << layout << ": " << v.evidence;
  }
}

TEST(IslLayout, ProvesATwoLevelTileByForEverySymbolicTileCount) {
  const IslVerdict v = check("OrderBy(Row(T,2), Col(4,4)).TileBy([T,2],[4,4])");
  EXPECT_EQ(v.status, IslStatus::Bijective) << v.evidence;
  EXPECT_NE(v.evidence.find("for all T >= 1"), std::string::npos) << v.evidence;
  EXPECT_TRUE(v.inverse_exact);
  // The tile size symbolic too, with the divisibility stated: bound B only.
  const IslVerdict tiles = check("OrderBy(Row(M//B,2), Row(B,B)).TileBy([M//B,2],[B,B])", {{"B", 8}}, {"M % B == 0"});
  EXPECT_EQ(tiles.status, IslStatus::Bijective) << tiles.evidence;
}

TEST(IslLayout, RefutesSizesThatDifferForSomeValues) {
  const IslVerdict v = check("OrderBy(Row(2*(N//2),4)).GroupBy([(N,4)])");
  EXPECT_EQ(v.status, IslStatus::NotBijective) << v.evidence;
  EXPECT_NE(v.counterexample.find("N = "), std::string::npos) << v.counterexample;
  // The same layout with N even: proved.
  EXPECT_EQ(check("OrderBy(Row(2*(N//2),4)).GroupBy([(N,4)])", {}, {"N % 2 == 0"}).status, IslStatus::Bijective);
}

TEST(IslLayout, DeclinesWhatIsNotQuasiAffine) {
  const IslVerdict product = check("OrderBy(Row(N,N)).GroupBy([(N,N)])");
  EXPECT_EQ(product.status, IslStatus::Undecided);
  EXPECT_NE(product.evidence.find("not quasi-affine"), std::string::npos) << product.evidence;
  EXPECT_EQ(check("OrderBy(GenP([8,8], antidiag)).TileBy([8,8])").status, IslStatus::Undecided);
  EXPECT_EQ(check("OrderBy(GenP([8,8], swizzle(3,0,3))).GroupBy([(8,8)])").status, IslStatus::Undecided);
  EXPECT_EQ(check("OrderBy(GenP([4,4], lambda i, j: i)).GroupBy([(4,4)])").status, IslStatus::Undecided);  // apply-only
}

RC_GTEST_PROP(IslLayout, AgreesWithTheExhaustiveCheckOnRandomBoundLayouts, ()) {
  testing::Extents ext;
  const std::string text = testing::random_layout(/*allow_expand=*/false, ext);
  RC_LOG() << text << "\n";
  const LayoutAst ast = parse_layout(text);
  const Plan plan = make_plan(ast, ext.bindings);
  const BijectivityReport numeric = check_bijective(plan);
  const IslVerdict v = isl_check_layout(ast, ext.bindings, {});
  RC_TAG(to_string(v.status));
  RC_LOG() << v.evidence << "\n";
  if (v.status == IslStatus::Undecided) return;
  RC_ASSERT(numeric.checked);
  RC_ASSERT((v.status == IslStatus::Bijective) == numeric.bijective);
  RC_ASSERT(v.inverse_exact || v.evidence.find("not quasi-affine") != std::string::npos);
}

}  // namespace
}  // namespace lego::poly
