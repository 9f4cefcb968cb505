// Layout evaluation speed. Run: build/release/bin/layout_bench
// Targets (issue 2): apply over a whole 1024x1024 3-level TileBy with a GenP
// at the inner level >= 100 M indices/s on one thread; the full table
// (apply + inv) of a 2^20-element layout < 20 ms. The literal spec evaluator
// runs on the same layouts so the ratio is measured in the same run.
#include <benchmark/benchmark.h>

#include "engine/layout/reference.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego {
namespace {

const char* const kLayouts[] = {
    // 3-level TileBy, 1024 x 1024, GenP at the inner level.
    "OrderBy(Row(8,8), Row(4,4), GenP([32,32], swizzle(3,2,3))).TileBy([8,8],[4,4],[32,32])",
    "OrderBy(Row(8,8), Col(4,4), GenP([32,32], antidiag)).TileBy([8,8],[4,4],[32,32])",
    // Rank 2, 1024 x 1024: 32x32 tiles, each swizzled (GenP inside a chain).
    "OrderBy(Row(32,32), GenP([32,32], swizzle(3,2,3))).OrderBy(RegP([32,32,32,32],[0,2,1,3])).GroupBy([(1024,1024)])",
    // Pure RegP tiling (bricks-like), 2^20 elements in 3-D.
    "OrderBy(Row(16,16,16), Row(2,2,2), Row(4,4,4)).TileBy([16,16,16],[2,2,2],[4,4,4])",
};

Plan plan(int which) { return make_plan(parse_layout(kLayouts[which]), {}); }

void label(benchmark::State& state, int which, std::int64_t items) {
  state.SetItemsProcessed(state.iterations() * items);
  state.SetLabel(kLayouts[which]);
}

void BM_ApplyAll(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const Plan p = plan(which);
  std::vector<std::int64_t> out(static_cast<std::size_t>(p.size()));
  for (auto _ : state) {
    p.apply_all(out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  label(state, which, p.size());
}
BENCHMARK(BM_ApplyAll)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

void BM_InvAll(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const Plan p = plan(which);
  std::vector<std::int64_t> out(static_cast<std::size_t>(p.size()) * p.shape().size());
  for (auto _ : state) {
    p.inv_all(out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  label(state, which, p.size());
}
BENCHMARK(BM_InvAll)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

// What `lego table --json` computes: every apply and every inv.
void BM_FullTable(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const Plan p = plan(which);
  std::vector<std::int64_t> apply(static_cast<std::size_t>(p.size()));
  std::vector<std::int64_t> inv(static_cast<std::size_t>(p.size()) * p.shape().size());
  for (auto _ : state) {
    p.apply_all(apply.data());
    p.inv_all(inv.data());
    benchmark::DoNotOptimize(apply.data());
    benchmark::DoNotOptimize(inv.data());
    benchmark::ClobberMemory();
  }
  label(state, which, p.size());
}
BENCHMARK(BM_FullTable)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

// Baseline: the spec evaluated literally, walking the chain per index.
void BM_ReferenceApplyAll(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const Plan p = plan(which);
  const auto& l = p.layout();
  std::vector<std::int64_t> out(static_cast<std::size_t>(p.size()));
  for (auto _ : state) {
    for (std::int64_t n = 0; n < p.size(); ++n) out[n] = testing::reference_apply(l, testing::unflat(n, l.shape));
    benchmark::DoNotOptimize(out.data());
  }
  label(state, which, p.size());
}
BENCHMARK(BM_ReferenceApplyAll)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

void BM_ParseAndCompile(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(make_plan(parse_layout(kLayouts[which]), {}));
  state.SetLabel(kLayouts[which]);
}
BENCHMARK(BM_ParseAndCompile)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lego

BENCHMARK_MAIN();
