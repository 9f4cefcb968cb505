// ISL as the second prover: it proves quasi-affine side conditions that
// intervals and symbolic bounds cannot, refuses false ones, and declines
// what is outside Presburger arithmetic.
#include "poly/isl_prover.hpp"

#include <gtest/gtest.h>

#include "expr/parser.hpp"

namespace lego::poly {
namespace {

struct Fixture {
  sym::Pool pool;
  sym::Facts facts;
  Fixture() {
    // N: a size >= 1; x in [0, 4N - 1]; i in [0, 7].
    facts.ranges["N"] = {pool.constant(1), nullptr};
    facts.is_parameter["N"] = true;
    facts.ranges["x"] = {pool.constant(0), pool.add_constant(pool.scale(4, pool.var("N")), -1)};
    facts.ranges["i"] = {pool.constant(0), pool.constant(7)};
  }
  sym::Ref parse(const char* text) { return pool.from_expr(parse_expression(text)); }
};

TEST(IslProver, TranslatesQuasiAffineAndDeclinesTheRest) {
  Fixture f;
  EXPECT_TRUE(to_isl(f.parse("x - 4*(x // 4) + (i % 3)")).has_value());
  EXPECT_FALSE(to_isl(f.parse("N*x")).has_value());     // parameter times index
  EXPECT_FALSE(to_isl(f.parse("x // N")).has_value());  // division by a parameter
  EXPECT_FALSE(to_isl(f.parse("min(x, i)")).has_value());
}

TEST(IslProver, ProvesWhatIntervalsCannot) {
  Fixture f;
  const sym::Ref e = f.parse("x - 4*(x // 4)");  // x % 4 written out: >= 0
  sym::Prover intervals_only(f.pool, f.facts);
  EXPECT_FALSE(intervals_only.nonneg(e));
  IslProver isl;
  EXPECT_TRUE(isl.nonneg(e, f.facts));
  sym::Prover with_isl(f.pool, f.facts);
  use_isl(with_isl, isl);
  EXPECT_TRUE(with_isl.nonneg(e));
  EXPECT_TRUE(with_isl.less_than(e, f.pool.constant(4)));
  EXPECT_GE(isl.queries(), 2);
}

TEST(IslProver, RefusesFalseClaims) {
  Fixture f;
  IslProver isl;
  EXPECT_FALSE(isl.nonneg(f.parse("x - 5*(x // 4)"), f.facts));  // x = 4: 4 - 5 < 0
  EXPECT_FALSE(isl.nonneg(f.parse("i - 7"), f.facts));
  EXPECT_TRUE(isl.nonneg(f.parse("7 - i"), f.facts));
  EXPECT_FALSE(isl.nonneg(f.parse("N*x"), f.facts));  // outside: unknown, never "true"
}

}  // namespace
}  // namespace lego::poly
