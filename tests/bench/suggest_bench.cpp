// lego suggest end to end (trace in a lego-worker, enumerate, check, score,
// rank) on each CUDA example's shared buffers: issue 16's target is 2 s each.
//   build/release/bin/suggest_bench
#include <benchmark/benchmark.h>

#include "kernel/spec.hpp"
#include "run/suggest.hpp"

namespace {

void suggest(benchmark::State& state, const char* file, const char* kernel, const char* buffer, lego::Env sets) {
  const lego::kernel::Project project =
      lego::kernel::load_project(std::string(LEGO_PROJECTS_DIR) + "/" + file, lego::kernel::default_resource_dirs());
  lego::run::WorkerClient worker(lego::run::default_worker_path());
  lego::run::SuggestOptions options;
  options.sets = sets;
  for (auto _ : state) {
    const lego::run::Suggestions s = lego::run::suggest_layouts(worker, lego::kernel::find_kernel(project, kernel), buffer, options);
    state.counters["candidates"] = static_cast<double>(s.ranked.size());
    state.counters["first_ways"] = s.ranked.front().worst_ways;
  }
}

}  // namespace

BENCHMARK_CAPTURE(suggest, transpose_S_32x32, "cuda_transpose.lego.json", "transpose_smem", "S", {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(suggest, nw_H_33x33, "cuda_paper.lego.json", "nw", "H", {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(suggest, matmul_SB_16x16, "cuda_matmul.lego.json", "matmul_smem", "SB", {{"T", 16}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(suggest, matmul_SB_32x32, "cuda_matmul.lego.json", "matmul_smem", "SB", {{"T", 32}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(suggest, matmul_SA_32x32, "cuda_matmul.lego.json", "matmul_smem", "SA", {{"T", 32}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(suggest, lud_SL_16x16, "cuda_paper.lego.json", "lud_internal", "SL", {})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(suggest, lud_SU_16x16, "cuda_paper.lego.json", "lud_internal", "SU", {})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
