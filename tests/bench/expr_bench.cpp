// Derive + simplify + print each paper case (issue 3: at most 5 ms median on
// the project's machine). Run: build/release/bin/expr_bench
// The `ops` counter is the printed expression's operation count.
#include <benchmark/benchmark.h>

#include "engine/layout/paper_cases.hpp"
#include "expr/parser.hpp"
#include "layout/derive.hpp"
#include "layout/parse.hpp"

namespace lego {
namespace {

void BM_Derive(benchmark::State& state) {
  const auto& c = testing::paper_cases()[static_cast<std::size_t>(state.range(0))];
  const LayoutAst ast = parse_layout(c.layout);
  DeriveRequest request{c.inverse, c.indices, {}, sym::Lang::Cuda, {}, {}, {}};
  if (*c.where) request.constraints.push_back(parse_expression(c.where));
  int ops = 0;
  for (auto _ : state) {
    const DeriveResult r = derive(ast, {}, request);
    ops = r.ops;
    benchmark::DoNotOptimize(r.exprs.data());
  }
  state.counters["ops"] = ops;
  state.SetLabel(c.name);
}
BENCHMARK(BM_Derive)
    ->DenseRange(0, static_cast<int>(testing::paper_cases().size()) - 1)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace lego

BENCHMARK_MAIN();
