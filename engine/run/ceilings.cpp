#include "run/ceilings.hpp"

#include <chrono>
#include <stdexcept>
#include <vector>

#include "run/jit.hpp"

namespace lego::run {
namespace {

// Many independent FMA chains per thread hide the FMA latency; the loop is
// vectorized by the JIT for the host's widest vectors.
constexpr const char* kSource = R"(
#include <omp.h>
#include <cstdint>
extern "C" int lego_threads() { return omp_get_max_threads(); }
extern "C" void lego_copy(const double* a, double* c, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) c[i] = a[i];
}
extern "C" void lego_triad(double* a, const double* b, const double* c, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
}
template <class T>
static T fma_loop(int64_t iterations) {
  T total = 0;
#pragma omp parallel reduction(+ : total)
  {
    T acc[128];
    for (int k = 0; k < 128; ++k) acc[k] = T(k) * T(1e-3);
    const T m = T(0.999999), s = T(1e-7);
    for (int64_t it = 0; it < iterations; ++it)
#pragma clang loop vectorize(enable) interleave(enable)
      for (int k = 0; k < 128; ++k) acc[k] = acc[k] * m + s;
    for (int k = 0; k < 128; ++k) total += acc[k];
  }
  return total;
}
extern "C" double lego_fma_f32(int64_t iterations) { return fma_loop<float>(iterations); }
extern "C" double lego_fma_f64(int64_t iterations) { return fma_loop<double>(iterations); }
)";

template <class F>
double best_seconds(int runs, F f) {
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

nlohmann::json measure_ceilings(int array_mib) {
  CompileOptions options;
  options.want_assembly = false;
  CompileResult c = compile_cpp(kSource, options);
  if (!c.module) throw std::runtime_error("the ceiling kernels do not compile:\n" + c.diagnostics);
  auto* threads = reinterpret_cast<int (*)()>(c.module->lookup("lego_threads"));
  auto* copy = reinterpret_cast<void (*)(const double*, double*, std::int64_t)>(c.module->lookup("lego_copy"));
  auto* triad = reinterpret_cast<void (*)(double*, const double*, const double*, std::int64_t)>(c.module->lookup("lego_triad"));
  auto* fma32 = reinterpret_cast<double (*)(std::int64_t)>(c.module->lookup("lego_fma_f32"));
  auto* fma64 = reinterpret_cast<double (*)(std::int64_t)>(c.module->lookup("lego_fma_f64"));

  const std::int64_t n = std::int64_t{array_mib} * 1024 * 1024 / 8;
  std::vector<double> a(n, 1.0), b(n, 2.0), cc(n, 0.5);
  copy(a.data(), cc.data(), n);  // first touch
  const double copy_s = best_seconds(5, [&] { copy(a.data(), cc.data(), n); });
  const double triad_s = best_seconds(5, [&] { triad(a.data(), b.data(), cc.data(), n); });
  const int t = threads();
  const std::int64_t iterations = 2'000'000;
  volatile double sink = 0;
  const double f32_s = best_seconds(3, [&] { sink = sink + fma32(iterations); });
  const double f64_s = best_seconds(3, [&] { sink = sink + fma64(iterations); });
  const double flops = 2.0 * 128 * static_cast<double>(iterations) * t;
  return {{"copy_gbs", 16.0 * static_cast<double>(n) / copy_s / 1e9},
          {"triad_gbs", 24.0 * static_cast<double>(n) / triad_s / 1e9},
          {"peak_gflops_f32", flops / f32_s / 1e9},
          {"peak_gflops_f64", flops / f64_s / 1e9},
          {"threads", t},
          {"cpu", host_cpu()},
          {"array_mib", array_mib}};
}

}  // namespace lego::run
