#include "run/ceilings.hpp"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#include "run/jit.hpp"

namespace lego::run {
namespace {

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

// Once to warm the caches and pages, then the best of five.
template <class F>
double warm_best_seconds(F f) {
  f();
  return best_seconds(5, f);
}

}  // namespace

int fma_chains(const target::Target& target) { return std::max(target.vector_registers - 2, 4); }

std::string ceiling_source(const target::Target& target) {
  // The FMA loop keeps CHAINS vectors of the target's width in registers:
  // written with vector types and unrolled, so no accumulator lives in
  // memory (128 scalar accumulators spilled on AVX2's 16 registers).
  return fmt::format(R"(#include <omp.h>
#include <cstdint>
constexpr int kChains = {0};
constexpr int kVectorBytes = {1};
// One whole vector in one register: unpinned, Clang splits a 64-byte vector
// into two 32-byte halves on Intel's AVX-512 cores (prefer-vector-width=256),
// and a Sapphire Rapids runs those on two of its three FMA ports (115 of its
// 230 GFLOP/s a core, where OpenBLAS's sgemm ran 156).
#if defined(__x86_64__)
#define LEGO_PIN(v) __asm__ volatile("" : "+v"(v))
#elif defined(__aarch64__)
#define LEGO_PIN(v) __asm__ volatile("" : "+w"(v))
#else
#define LEGO_PIN(v)
#endif
extern "C" int lego_threads() {{ return omp_get_max_threads(); }}
// STREAM's copy with streaming stores of whole vectors (a scalar
// __builtin_nontemporal_store does not vectorize; x86 has no scalar
// streaming store of a double but AMD's movntsd). The arrays are 64-byte
// aligned and n a multiple of 64 doubles.
extern "C" void lego_copy(const double* a, double* c, int64_t n) {{
  typedef double vec __attribute__((vector_size(kVectorBytes)));
  constexpr int64_t lanes = kVectorBytes / 8;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i += 64)
#pragma clang loop unroll(full)
    for (int64_t k = 0; k < 64; k += lanes)
      __builtin_nontemporal_store(*reinterpret_cast<const vec*>(a + i + k), reinterpret_cast<vec*>(c + i + k));
}}
// Streaming stores in runs of `run` doubles, one run in each row of `row`
// doubles, the rows innermost: every run opens lines no store near it in
// time touched, as a register transpose's destination rows do.
extern "C" void lego_stream_runs(double* c, int64_t n, int64_t run, int64_t row) {{
  typedef double vec __attribute__((vector_size(kVectorBytes)));
  constexpr int64_t lanes = kVectorBytes / 8;
  const int64_t rows = n / row;
#pragma omp parallel for schedule(static)
  for (int64_t column = 0; column < row; column += run)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < run; k += lanes)
        __builtin_nontemporal_store(vec{{}} + double(r), reinterpret_cast<vec*>(c + r * row + column + k));
}}
// Copies with plain (cached) stores: whole 64-byte lines, one line's
// vectors after another, and each line in four 16-byte pieces, one piece of
// every line of a 4 KiB block before the next piece. A line written in
// pieces is read before it is written (read for ownership); a core may
// skip that read for a line whole vectors write at once (scalar stores
// of the same line one after another do not: a Sapphire Rapids copied at
// 23 GB/s so, and at 29-31 with 64-byte vectors).
extern "C" void lego_copy_whole_lines(const double* a, double* c, int64_t n) {{
  typedef double line __attribute__((vector_size(64)));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i += 8) {{
    line v;
    __builtin_memcpy(&v, a + i, sizeof v);
    __builtin_memcpy(c + i, &v, sizeof v);
  }}
}}
extern "C" void lego_copy_in_quarters(const double* a, double* c, int64_t n) {{
#pragma omp parallel for schedule(static)
  for (int64_t block = 0; block < n; block += 512)
    for (int64_t piece = 0; piece < 8; piece += 2)
      for (int64_t line = block; line < block + 512; line += 8) __builtin_memcpy(c + line + piece, a + line + piece, 16);
}}
extern "C" void lego_triad(double* a, const double* b, const double* c, int64_t n) {{
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
}}
template <class T>
static double fma_loop(int64_t iterations) {{
  typedef T vec __attribute__((vector_size(kVectorBytes)));
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {{
    vec acc[kChains];
#pragma clang loop unroll(full)
    for (int k = 0; k < kChains; ++k) acc[k] = vec{{}} + T(k) * T(1e-3);
    vec m = vec{{}} + T(0.999999), s = vec{{}} + T(1e-7);
    for (int64_t it = 0; it < iterations; ++it) {{
#pragma clang loop unroll(full)
      for (int k = 0; k < kChains; ++k) {{
        acc[k] = acc[k] * m + s;
        LEGO_PIN(acc[k]);
      }}
    }}
#pragma clang loop unroll(full)
    for (int k = 0; k < kChains; ++k)
      for (int l = 0; l < int(sizeof(vec) / sizeof(T)); ++l) total += acc[k][l];
  }}
  return total;
}}
extern "C" double lego_fma_f32(int64_t iterations) {{ return fma_loop<float>(iterations); }}
extern "C" double lego_fma_f64(int64_t iterations) {{ return fma_loop<double>(iterations); }}
// The clock while every core is busy with vector FMAs, as the peak runs: a
// chain of dependent one-cycle adds with an independent FMA of the target's
// vector width beside every second add (few enough that even one pipe keeps
// up), since a core's clock drops under wide vector load (4.0 GHz scalar,
// 3.6 with 512-bit FMAs, on a Sapphire Rapids). The empty asm keeps each add,
// and its result, in a register; each adds a register whose value the
// compiler cannot see, since Golden Cove's renamer folds adds of an
// immediate (x += 1) without executing them: that chain read 17.5 GHz.
extern "C" double lego_clock(int64_t adds, double (*now)()) {{
  typedef float vec __attribute__((vector_size(kVectorBytes)));
  double ghz = 0;
#pragma omp parallel reduction(+ : ghz)
  {{
    uint64_t x = 0, step = 1;
    __asm__ volatile("" : "+r"(step));
    vec acc[8];
    for (int k = 0; k < 8; ++k) acc[k] = vec{{}} + float(k) * 1e-3f;
    const vec m = vec{{}} + 0.9999f, s = vec{{}} + 1e-7f;
    const double t0 = now();
    for (int64_t i = 0; i < adds; i += 16) {{
#pragma clang loop unroll(full)
      for (int k = 0; k < 16; ++k) {{
        x += step;
        __asm__ volatile("" : "+r"(x));
        if (k % 2 == 0) {{
          acc[k / 2] = acc[k / 2] * m + s;
          LEGO_PIN(acc[k / 2]);  // whole vectors, whose clock drops where halves' does not
        }}
      }}
    }}
    const double t1 = now();
    float kept = 0;
    for (int k = 0; k < 8; ++k) kept += acc[k][0];
    ghz = double(adds) / (t1 - t0) / 1e9 + double(x == 0) + double(kept == 12345.f);
  }}
  return ghz / omp_get_max_threads();
}}
)",
                     fma_chains(target), target.vector_bytes);
}

std::string peak_disagreement(double measured, double theoretical) {
  if (measured <= 0 || theoretical <= 0) return "";
  const double ratio = measured / theoretical;
  if (std::abs(ratio - 1) <= 0.15) return "";
  return fmt::format(
      "the measured peak is {:.0f}% of the theoretical {:.0f} GFLOP/s (FMA pipes x lanes x 2 x clock x cores); {}", 100 * ratio,
      theoretical,
      ratio < 1 ? "the FMA kernel is not saturating the pipes (other load on the machine, fewer pipes than the target model says, or "
                  "a clock that drops under vector load)"
                : "the target model has fewer pipes or a narrower datapath than this machine");
}

namespace {
double steady_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
// How much of a streaming kernel's traffic the caches keep: a triad over 4,
// 8, 16, 32 and 64 MiB in all (its three arrays), each timed warm, counts
// as resident while it runs at 1.75x the triad from memory or faster (64
// stands for 64 or more). The search's prior prices a kernel that fits at
// L3's cost; a virtual machine may hide its caches, or report the whole
// package's L3 where a core reaches a chiplet's (a Zen 5 guest: 508 MiB
// reported, 32 MiB measured here: 134 GB/s at 32 MiB, 110 at 48, 85 at 64,
// 68 from memory; 64 MiB passed a margin of 1.5 when the triad from memory
// was timed low).
template <class Triad>
int resident_mib(Triad triad, std::int64_t array_doubles, double memory_gbs) {
  int resident = 0;
  for (const int mib : {4, 8, 16, 32, 64}) {
    const std::int64_t m = std::int64_t{mib} * 1024 * 1024 / 24 / 64 * 64;
    if (m > array_doubles || memory_gbs <= 0) break;
    triad(m);
    const double seconds = best_seconds(10, [&] { triad(m); });
    if (24.0 * static_cast<double>(m) / seconds / 1e9 < 1.75 * memory_gbs) break;
    resident = mib;
  }
  return resident;
}

// What a streamed line costs when no store near it in time writes its
// neighbours, against one of a 128-byte pair: runs of 64 and of 128 bytes
// streamed, one per 256 KiB row. Memory systems differ here far more than
// in bandwidth: a Zen 5 guest streamed lone 64-byte lines at 10 GB/s,
// pairs at 24 and runs of 4 KiB at 68, and its register transposes of 16
// (lone destination lines 1 KiB apart) ran 1.9x its transposes of 32
// (pairs), which ran with those of 64 (whole runs): in a 256^3 transpose,
// whose rows are 1 KiB apart, pairs already stream at the memory's pace. The
// search's prior prices a register transpose's lone destination lines by
// it (search/walk.hpp), and the lines of a tensor a template accesses in
// runs of a line or less (search/in_core.cpp: the staged stencils' bricks).
// The same rows streamed in runs of 256 bytes and of 4 KiB measure a
// pair's and a four-line run's lines against a long run's: that guest
// streamed pairs at 3.4x a 4 KiB run's time a line and runs of four at 2.0x,
// and its 8192^2 register transposes (one, two or four lines of each of 16
// destination rows 32 KiB apart) ran 2.9x, 1.6x and 1.3x behind copies into
// column tiles, whose plain stores write 1 KiB runs (search/features.cpp's
// walk_penalty says why the prior does not price them yet).
struct StreamedRunCosts {
  double lone = 0, pair = 0, quad = 0;
};
template <class StreamRuns>
StreamedRunCosts streamed_run_costs(StreamRuns stream_runs) {
  const auto seconds = [&](std::int64_t run_doubles) { return warm_best_seconds([&] { stream_runs(run_doubles); }); };
  const double pairs = seconds(16), quads = seconds(32), long_runs = seconds(512);
  StreamedRunCosts c;
  if (pairs > 0) c.lone = std::clamp(seconds(8) / pairs, 1.0, 16.0);
  if (long_runs > 0) {
    c.pair = std::clamp(pairs / long_runs, 1.0, 16.0);
    c.quad = std::clamp(quads / long_runs, 1.0, 16.0);
  }
  return c;
}

// What a destination line written in four 16-byte pieces at different
// times costs against one written whole, in a copy with plain stores: where
// the core skips the read for ownership of a line a store writes whole (a
// Sapphire Rapids), a line written in pieces moves three times over, not
// two. stencil7's output in bricks of 4 and of 8 (rows of 16 and 32 bytes
// in each line, the line's other rows written a row later) ran 1.6-1.75x
// the bricks of 16 and the rows (64-byte rows) there. The search's prior
// prices a tensor written in runs shorter than a line by it
// (search/in_core.cpp).
template <class Whole, class Quarters>
double partial_line_cost(Whole copy_whole_lines, Quarters copy_in_quarters) {
  const double whole = warm_best_seconds(copy_whole_lines);
  return whole > 0 ? std::clamp(warm_best_seconds(copy_in_quarters) / whole, 1.0, 4.0) : 0.0;
}

}  // namespace

Roof measure_ceilings(int array_mib, const std::string& target_name) {
  const target::Target target = target::resolve(target_name);
  CompileOptions options;
  options.want_assembly = false;
  options.target = target;
  CompileResult c = compile_cpp(ceiling_source(target), options);
  if (!c.module) throw std::runtime_error("the ceiling kernels do not compile:\n" + c.diagnostics);
  auto* threads = reinterpret_cast<int (*)()>(c.module->lookup("lego_threads"));
  auto* copy = reinterpret_cast<void (*)(const double*, double*, std::int64_t)>(c.module->lookup("lego_copy"));
  auto* triad = reinterpret_cast<void (*)(double*, const double*, const double*, std::int64_t)>(c.module->lookup("lego_triad"));
  auto* stream_runs = reinterpret_cast<void (*)(double*, std::int64_t, std::int64_t, std::int64_t)>(c.module->lookup("lego_stream_runs"));
  auto* copy_whole_lines = reinterpret_cast<void (*)(const double*, double*, std::int64_t)>(c.module->lookup("lego_copy_whole_lines"));
  auto* copy_in_quarters = reinterpret_cast<void (*)(const double*, double*, std::int64_t)>(c.module->lookup("lego_copy_in_quarters"));
  auto* fma32 = reinterpret_cast<double (*)(std::int64_t)>(c.module->lookup("lego_fma_f32"));
  auto* fma64 = reinterpret_cast<double (*)(std::int64_t)>(c.module->lookup("lego_fma_f64"));
  auto* clock = reinterpret_cast<double (*)(std::int64_t, double (*)())>(c.module->lookup("lego_clock"));

  const std::int64_t n = std::int64_t{array_mib} * 1024 * 1024 / 8;
  // 64-byte aligned: streamed vector stores need aligned addresses.
  struct Free {
    void operator()(double* p) const { std::free(p); }
  };
  const auto array = [&](double value) {
    std::unique_ptr<double[], Free> p(static_cast<double*>(std::aligned_alloc(64, static_cast<std::size_t>(n) * sizeof(double))));
    if (!p) throw std::runtime_error("cannot allocate the STREAM arrays");
    std::fill(p.get(), p.get() + n, value);
    return p;
  };
  auto a = array(1.0), b = array(2.0), cc = array(0.5);
  copy(a.get(), cc.get(), n);  // first touch
  const double copy_s = best_seconds(5, [&] { copy(a.get(), cc.get(), n); });
  // The triads' share of the cores, as the FMA runs' below: another
  // process on them slows the triad from memory, and every smaller triad
  // then looks resident against it.
  const double memory_cpu0 = process_cpu_seconds(), memory_wall0 = steady_seconds();
  const double triad_s = best_seconds(5, [&] { triad(a.get(), b.get(), cc.get(), n); });
  const double triad_gbs = 24.0 * static_cast<double>(n) / triad_s / 1e9;
  const int resident = resident_mib([&](std::int64_t m) { triad(a.get(), b.get(), cc.get(), m); }, n, triad_gbs);
  constexpr std::int64_t kStreamRow = 32768;  // doubles: 256 KiB apart, a row of a 64K-float matrix
  const StreamedRunCosts streamed =
      streamed_run_costs([&](std::int64_t run) { stream_runs(cc.get(), n / kStreamRow * kStreamRow, run, kStreamRow); });
  const double partial_lines =
      partial_line_cost([&] { copy_whole_lines(a.get(), cc.get(), n); }, [&] { copy_in_quarters(a.get(), cc.get(), n); });
  const int t = threads();
  const double memory_share = (process_cpu_seconds() - memory_cpu0) / ((steady_seconds() - memory_wall0) * std::max(t, 1));
  const int chains = fma_chains(target);
  const std::int64_t iterations = 4'000'000'000LL / (chains * target.vector_bytes);
  volatile double sink = 0;
  // The share of the FMA runs' wall time the process had every core for:
  // another process on the cores halves the measured clock and peak alike,
  // so the 15% check cannot see it; this can.
  const double cpu0 = process_cpu_seconds(), wall0 = steady_seconds();
  const double f32_s = best_seconds(5, [&] { sink = sink + fma32(iterations); });
  const double cpu_share = (process_cpu_seconds() - cpu0) / ((steady_seconds() - wall0) * std::max(threads(), 1));
  const double f64_s = best_seconds(5, [&] { sink = sink + fma64(iterations); });
  double ghz = 0;
  for (int r = 0; r < 3; ++r) ghz = std::max(ghz, clock(400'000'000, steady_seconds));
  const double vectors = static_cast<double>(chains) * static_cast<double>(iterations) * t;
  const double flops32 = 2.0 * vectors * (target.vector_bytes / 4), flops64 = 2.0 * vectors * (target.vector_bytes / 8);
  target::Target at_clock = target;
  at_clock.ghz = ghz;
  at_clock.cores = t;
  Roof roof;
  roof.copy_gbs = 16.0 * static_cast<double>(n) / copy_s / 1e9;
  roof.triad_gbs = triad_gbs;
  if (memory_share >= kBusyShare) {  // else another process's share of the memory skewed both
    roof.resident_mib = resident;
    roof.lone_line_cost = streamed.lone;
    roof.pair_line_cost = streamed.pair;
    roof.quad_line_cost = streamed.quad;
    roof.partial_line_cost = partial_lines;
  }
  roof.peak_gflops_f32 = flops32 / f32_s / 1e9;
  roof.peak_gflops_f64 = flops64 / f64_s / 1e9;
  roof.threads = t;
  roof.cpu = host_cpu();
  roof.array_mib = array_mib;
  roof.target = target.name;
  roof.level = target.level();
  roof.fma_chains = chains;
  roof.clock_ghz = ghz;
  roof.theoretical_gflops_f32 = at_clock.theoretical_peak_gflops_f32();
  roof.cpu_share = std::min(cpu_share, memory_share);
  return roof;
}

}  // namespace lego::run
