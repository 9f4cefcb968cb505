// The tool's roofs against independent measurements, side by side in one
// run (issue 28): lego ceilings' copy against a STREAM-style copy compiled
// by the system compiler (-O3 -march=native, OpenMP, non-temporal stores),
// and its peak FMA rate against the theoretical peak at the clock it
// measured. Each target this machine can run is measured.
//
//   build/release/bin/ceilings_bench
//
// Counters: copy_gbs (the tool's), stream_copy_gbs (this file's), copy_ratio
// (tool / STREAM: the target is 0.8 to 1.2), peak_gflops, theoretical_gflops,
// peak_ratio (the target is 0.85 to 1.15).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "run/ceilings.hpp"
#include "target/target.hpp"

namespace {

constexpr std::int64_t kElements = std::int64_t{128} * 1024 * 1024 / 8;  // 128 MiB per array, as lego ceilings

struct Free {
  void operator()(double* p) const { std::free(p); }
};
using Array = std::unique_ptr<double[], Free>;

Array aligned_array(double value) {
  Array a(static_cast<double*>(std::aligned_alloc(64, kElements * sizeof(double))));
  std::fill(a.get(), a.get() + kElements, value);
  return a;
}

// STREAM's copy, c[i] = a[i], with streaming stores where the compiler's target has them.
void stream_copy(const double* a, double* c) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < kElements; i += 8) {
#if defined(__AVX__)
    _mm256_stream_pd(c + i, _mm256_load_pd(a + i));
    _mm256_stream_pd(c + i + 4, _mm256_load_pd(a + i + 4));
#else
    for (int k = 0; k < 8; ++k) c[i + k] = a[i + k];
#endif
  }
#if defined(__AVX__)
  _mm_sfence();
#endif
}

double best_stream_copy_gbs() {
  Array a = aligned_array(1.0), c = aligned_array(0.0);
  stream_copy(a.get(), c.get());
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    stream_copy(a.get(), c.get());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 16.0 * static_cast<double>(kElements) / best / 1e9;  // STREAM counts a read and a write per element
}

void Ceilings(benchmark::State& state, const std::string& target_name) {
  for (auto _ : state) {
    // Interleaved, three rounds of the tool's figures then STREAM's, keeping
    // each one's best: this machine's memory bandwidth swung between 60
    // and 100 GB/s from one second to the next, and one round each put the
    // tool in a slow second and STREAM in a fast one (0.75 one run, 1.03
    // the next).
    lego::run::Roof tool;
    double stream = 0, copy = 0, peak = 0, theoretical = 0;
    for (int round = 0; round < 3; ++round) {
      tool = lego::run::measure_ceilings(128, target_name);
      copy = std::max(copy, tool.copy_gbs);
      peak = std::max(peak, tool.peak_gflops_f32);
      theoretical = std::max(theoretical, tool.theoretical_gflops_f32);
      stream = std::max(stream, best_stream_copy_gbs());
    }
    state.counters["copy_gbs"] = copy;
    state.counters["stream_copy_gbs"] = stream;
    state.counters["copy_ratio"] = copy / stream;
    state.counters["peak_gflops"] = peak;
    state.counters["theoretical_gflops"] = theoretical;
    state.counters["peak_ratio"] = theoretical > 0 ? peak / theoretical : 0;
    state.counters["fma_chains"] = tool.fma_chains;
    state.counters["clock_ghz"] = tool.clock_ghz;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Two OpenMP runtimes share this process: the JIT's kernels run on LLVM's
  // libomp, this file's STREAM copy on GCC's libgomp. Each one's threads
  // spin for a while after a parallel region (libomp 200 ms), and on a
  // 2-core machine the other's copy then ran at half speed (STREAM 34 GB/s
  // against 60 in about one run of two). Passive threads sleep at once.
  setenv("OMP_WAIT_POLICY", "passive", 0);
  benchmark::Initialize(&argc, argv);
  // (x86-64-v2 is left out: its peak on a machine with FMA pipes is not the
  // mul + add model the target describes.)
  for (const char* name : {"host", "x86-64-v4", "x86-64-v3"}) {
    const lego::target::Target t = lego::target::resolve(name);
    if (!lego::target::runs_on(t, lego::target::host())) continue;
    benchmark::RegisterBenchmark((std::string("Ceilings/") + name).c_str(), Ceilings, std::string(name))
        ->Iterations(1)
        ->Unit(benchmark::kSecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
