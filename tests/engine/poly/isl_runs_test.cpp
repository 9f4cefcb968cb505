// Runs of consecutive positions proved by ISL: the lengths a row-major
// row, a brick's row and a column give, nothing claimed outside Presburger
// arithmetic, and on random bound layouts every run ISL proves holds at
// every index (checked by enumerating the layout).
#include "poly/isl_runs.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <limits>

#include "engine/layout/random_layout.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/untiled_view.hpp"

namespace lego::poly {
namespace {

constexpr std::int64_t kAny = std::numeric_limits<std::int64_t>::max();

// The layout read with `rank` indices (a TileBy's untiled view, as a
// tensor reads it), or with its own.
std::int64_t run_of(const char* layout, std::size_t dimension, std::int64_t max_run = kAny, const Env& env = {}, std::size_t rank = 0) {
  const LayoutAst ast = parse_layout(layout);
  return prove_runs(rank ? untiled_view(ast, rank) : ast, env, dimension, max_run).run;
}

// Whether every aligned run of `run` along `dimension` is consecutive, by
// visiting every index.
bool holds_everywhere(const Plan& plan, std::size_t dimension, std::int64_t run) {
  const auto& shape = plan.shape();
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::int64_t n = 0; n < plan.size(); ++n) {
    std::int64_t rest = n;
    for (std::size_t d = shape.size(); d-- > 0;) idx[d] = rest % shape[d], rest /= shape[d];
    if (idx[dimension] % run == run - 1) continue;
    std::vector<std::int64_t> next = idx;
    ++next[dimension];
    if (plan.apply(next.data()) != plan.apply(idx.data()) + 1) return false;
  }
  return true;
}

TEST(IslRuns, RowMajorRowsAreWholeRuns) {
  EXPECT_EQ(run_of("OrderBy(Row(8, 16)).GroupBy([(8, 16)])", 1), 16);
  EXPECT_EQ(run_of("OrderBy(Row(8, 16)).GroupBy([(8, 16)])", 1, 4), 4);  // capped
  EXPECT_EQ(run_of("OrderBy(Row(8, 16)).GroupBy([(8, 16)])", 0), 1);     // a column: stride 16
}

TEST(IslRuns, BricksStoreRunsOfTheirEdge) {
  const char* bricks = "OrderBy(Row(N // BR, N // BR, N // BR), Row(BR, BR, BR)).TileBy([N // BR] * 3, [BR] * 3)";
  EXPECT_EQ(run_of(bricks, 2, kAny, {{"N", 32}, {"BR", 4}}, 3), 4);
  EXPECT_EQ(run_of(bricks, 2, kAny, {{"N", 32}, {"BR", 8}}, 3), 8);
  EXPECT_EQ(run_of(bricks, 1, kAny, {{"N", 32}, {"BR", 4}}, 3), 1);
  EXPECT_EQ(run_of(bricks, 5, kAny, {{"N", 32}, {"BR", 4}}), 4);  // tiled: the index inside a brick
}

TEST(IslRuns, ColumnMajorAndPermutedTilesHaveNone) {
  EXPECT_EQ(run_of("OrderBy(Col(8, 8)).GroupBy([(8, 8)])", 1), 1);
  EXPECT_EQ(run_of("OrderBy(Col(8, 8)).GroupBy([(8, 8)])", 0), 8);
  // Tiles of 2 along j, stored with j's digits swapped with i's.
  EXPECT_EQ(run_of("OrderBy(RegP([2,4,2,4],[0,2,1,3])).GroupBy([(8, 8)])", 1), 4);
}

TEST(IslRuns, ClaimsNothingOutsidePresburgerArithmetic) {
  const RunProof p = prove_runs(parse_layout("OrderBy(GenP([8,8], antidiag)).TileBy([8,8])"), {}, 1, kAny);
  EXPECT_EQ(p.run, 1);
  EXPECT_FALSE(p.evidence.empty());
}

RC_GTEST_PROP(IslRuns, EveryProvedRunHoldsAtEveryIndex, ()) {
  testing::Extents ext;
  const std::string text = testing::random_layout(/*allow_expand=*/false, ext);
  RC_LOG() << text << "\n";
  const LayoutAst ast = parse_layout(text);
  const Plan plan = make_plan(ast, ext.bindings);
  RC_PRE(plan.size() <= 4096);
  const std::size_t dimension = *rc::gen::inRange<std::size_t>(0, plan.shape().size());
  const RunProof proof = prove_runs(ast, ext.bindings, dimension, kAny);
  RC_LOG() << "run " << proof.run << ": " << proof.evidence << "\n";
  RC_TAG(proof.run > 1 ? "proved a run" : "no run");
  RC_ASSERT(plan.shape()[dimension] % proof.run == 0);
  RC_ASSERT(holds_everywhere(plan, dimension, proof.run));
}

}  // namespace
}  // namespace lego::poly
