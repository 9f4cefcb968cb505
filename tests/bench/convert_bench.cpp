// The conversion planner's time (issue 33's target: a 64 x 64 tile over
// four warps planned in under a second), and a warp-sized one for scale.
#include <benchmark/benchmark.h>

#include "convert/planner.hpp"
#include "convert/tv_text.hpp"

namespace {

void plan(benchmark::State& state, const char* from, const char* to, int rows, int cols, int threads) {
  const lego::convert::TvText f = lego::convert::read_tv(from, "FROM", rows, cols, threads);
  const lego::convert::TvText t = lego::convert::read_tv(to, "TO", f.tv.rows, f.tv.cols, threads);
  for (auto _ : state) benchmark::DoNotOptimize(lego::convert::plan_conversion(f.tv, t.tv, {4, {}}));
}

void BM_PlanRowsToColumns64x64FourWarps(benchmark::State& state) {
  plan(state, "OrderBy(Row(64, 64)).GroupBy([(64, 64)])", "OrderBy(Col(64, 64)).GroupBy([(64, 64)])", 64, 64, 128);
}
BENCHMARK(BM_PlanRowsToColumns64x64FourWarps)->Unit(benchmark::kMillisecond);

void BM_PlanRowsToColumns32x32OneWarp(benchmark::State& state) {
  plan(state, "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", 32, 32, 32);
}
BENCHMARK(BM_PlanRowsToColumns32x32OneWarp)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
