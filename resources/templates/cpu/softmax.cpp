// Row softmax, fp32: Y[r, :] = exp(X[r, :] - max) / sum. Every access goes
// through the tensors' layouts; the template itself does no index
// arithmetic (Table IV of the paper: 0 user-visible ops).
//
// Speed: one loop per row does three rows' work, a software pipeline
// (each task walks ROWS consecutive rows, a parameter: a short task pays
// its pipeline's first and last steps more often, a long one leaves fewer
// tasks to share among the threads):
//   - the maximum of row r + 1, whose loads also bring that row into L1;
//   - the exponentials of row r, written to Y unscaled, and their sum;
//   - the scaling of row r - 1, whose Y is still in L1.
// The exp arithmetic then hides the memory traffic of the other two, where
// three passes per row left the first and last bound by memory and the
// max's single dependent chain (lego bench at 4096 x 1024: 0.61 ms in three
// passes, 0.33-0.35 ms pipelined, against a 0.21-0.23 ms copy).
//
// The loop body works on whole vectors of the target's width (GCC vector
// types, which clang and gcc both compile), so neither compiler has to
// discover the vectorization: with per-lane scalar loops under `omp simd`,
// clang vectorized only with -ffp-contract=fast and gcc not at all, and
// the exported kernel ran 7x slower than the sweep measured. The max and
// the sum are per-lane until the row ends (a float reduction reorders, which
// a compiler may not do on its own). A row's vector is one load where the
// layout stores LANES columns at consecutive positions (X.run(1), proved
// by the engine), and LANES element loads where it does not (column-major).
#include <cmath>
#include <cstdint>
#include <cstring>

typedef float lego_vec __attribute__((vector_size({{ VECTOR_BYTES }})));
typedef uint32_t lego_bits __attribute__((vector_size({{ VECTOR_BYTES }})));
constexpr int LANES = {{ VECTOR_BYTES }} / 4;
constexpr int64_t ROWS = {{ ROWS }};  // rows one task pipelines
constexpr int64_t COLUMNS = {{ N }} / LANES * LANES;  // the columns in whole vectors
constexpr bool X_ROWS_IN_VECTORS = {{ X.run(1) }} % LANES == 0, Y_ROWS_IN_VECTORS = {{ Y.run(1) }} % LANES == 0;

static inline lego_vec splat(float v) { return lego_vec{} + v; }

// X[r, c0 .. c0 + LANES - 1].
static inline lego_vec load_x(const float* X, int64_t r, int64_t c0) {
  lego_vec v;
  if constexpr (X_ROWS_IN_VECTORS) {
    std::memcpy(&v, &X[{{ X[r, c0] }}], sizeof v);
  } else {
    for (int l = 0; l < LANES; ++l) {
      const int64_t c = c0 + l;
      v[l] = X[{{ X[r, c] }}];
    }
  }
  return v;
}

static inline lego_vec load_y(const float* Y, int64_t r, int64_t c0) {
  lego_vec v;
  if constexpr (Y_ROWS_IN_VECTORS) {
    std::memcpy(&v, &Y[{{ Y[r, c0] }}], sizeof v);
  } else {
    for (int l = 0; l < LANES; ++l) {
      const int64_t c = c0 + l;
      v[l] = Y[{{ Y[r, c] }}];
    }
  }
  return v;
}

static inline void store_y(float* Y, int64_t r, int64_t c0, lego_vec v) {
  if constexpr (Y_ROWS_IN_VECTORS) {
    std::memcpy(&Y[{{ Y[r, c0] }}], &v, sizeof v);
  } else {
    for (int l = 0; l < LANES; ++l) {
      const int64_t c = c0 + l;
      Y[{{ Y[r, c] }}] = v[l];
    }
  }
}

// Software prefetches, for layouts whose rows are in vectors: X's row two
// steps on, and Y's next row, which the step after writes, so that its
// stores find their lines in cache instead of waiting in the store queue on
// misses. The hardware prefetcher alone left the loop waiting on memory: at
// 65536 x 1024 (from DRAM) they took softmax from 0.73 to 0.93 of copy on
// AVX-512 and from 0.62 to 0.82 on AVX2.
//   - Into L2, not L1 (locality 2: prefetcht1 on x86, pldl2keep on Arm). A
//     row of 1024 floats is 4 KiB, one line in each of a 32 KiB L1's 64
//     sets, so each row there takes one of its 8 ways, and the step keeps
//     four in use (X's rows r and r + 1, Y's rows r - 1 and r). Prefetched
//     into L1 as well, the two rows ahead pushed those out, and the
//     rescaling of row r - 1 went back to L2: the loop without its
//     exponentials was as slow as with them, so the memory held it, not the
//     arithmetic. (Zen 1-3 treat prefetcht1 as prefetcht0, AMD documents:
//     there this changes nothing.)
//   - Y's too is a read prefetch: a prefetch for writing is prefetchw
//     wherever the target has PRFCHW (the host target on x86 CPUs since
//     Broadwell and Zen, AVX2 or AVX-512; none of the named x86-64-v3/v4
//     targets lists it), which fills L1 whatever the locality asks. A line
//     read into L2 that no other core holds arrives exclusive on x86, so
//     the store after it needs no second trip.
//   - Measured on Zen 4 at 4096 x 1024 (X in L3), two threads, a harness of
//     the exported kernel against a copy: x86-64-v3 0.67 of copy before,
//     0.81-0.93 after; the host target (AVX-512, with PRFCHW) 0.77-0.82
//     with X's prefetch in L2 and Y's prefetchw, 0.93-1.01 with both read
//     prefetches into L2.
//   - One per vector, not per cache line: a test that skips the repeats
//     costs more than the repeats.
//   - PREFETCH = 0 leaves them out: where the rows come from L2 or L3
//     (a smaller M), the hardware prefetcher may keep up alone and the
//     prefetches only take load slots; the search measures which.
constexpr bool PREFETCH = {{ PREFETCH }} != 0;

static inline void prefetch_x(const float* X, int64_t r, int64_t c0) {
  if constexpr (PREFETCH && X_ROWS_IN_VECTORS) __builtin_prefetch(&X[{{ X[r, c0] }}], 0, 2);
}

static inline void prefetch_y(float* Y, int64_t r, int64_t c0) {
  if constexpr (PREFETCH && Y_ROWS_IN_VECTORS) __builtin_prefetch(&Y[{{ Y[r, c0] }}], 0, 2);
}

// e^(x - max) as 2^t, t = x log2(e) - max log2(e) = n + f: n is t rounded
// to an integer, f in [-1/2, 1/2].
//   - t is one FMA per element. max log2(e) is rounded once per row, and
//     that error shifts every t of the row by the same amount: it scales the
//     row's exponentials and their sum alike, and cancels in e / sum.
//   - 2^f is a degree-4 polynomial fitted (Lawson) for relative error:
//     2.7e-6 in float arithmetic, 27 times under the float tolerance (1e-4)
//     the outputs are checked against. The FMA pipes bound this loop: with
//     both threads on one core's two hyperthreads, rows in L2 ran 5.8 cycles
//     per vector at degree 5 and 13 % fewer at degree 4 (one of the seven
//     FMA-pipe operations per vector gone); degree 3 (9e-5) would sit at
//     the tolerance.
//   - 2^n is added into the float's exponent bits. Rounding adds 1.5 * 2^23,
//     which leaves n in the low mantissa bits (std::floor does not vectorize
//     in gcc without -ffast-math); shifted left by 23 they are n's exponent
//     increment, the constant's own bits falling off the top.
//   - The clamp at -125 keeps the result a normal float (2^-125, far under
//     any tolerance), so the exponent addition cannot wrap. It is an
//     unsigned minimum of the bits: every float from -125 up (and every
//     positive one) has bits at most -125's, every float below it (and
//     -inf, and the negative NaN of inf - inf) has more. One integer op
//     in both compilers, where gcc turned the float form `t > -125 ? t :
//     -125` into a compare and a blend, and its export of this kernel ran
//     12 % slower than the JIT's build on AVX-512 and 9 % on AVX2.
// The scalar form, for the columns past the last whole vector, and the
// vector form where the target has no in-register table (below).
static inline lego_vec softmax_exp2_polynomial(lego_vec t) {
  const lego_bits bits = __builtin_bit_cast(lego_bits, t), floor_bits = __builtin_bit_cast(lego_bits, splat(-125.0f));
  t = __builtin_bit_cast(lego_vec, bits < floor_bits ? bits : floor_bits);
  const lego_vec shifted = t + 12582912.0f;
  const lego_vec f = t - (shifted - 12582912.0f);
  lego_vec p = splat(0.00957008128f);
  p = p * f + 0.0559178587f;
  p = p * f + 0.240247453f;
  p = p * f + 0.693121815f;
  p = p * f + 0.999999261f;
  const lego_bits two_to_n = __builtin_bit_cast(lego_bits, shifted) << 23;
  return __builtin_bit_cast(lego_vec, __builtin_bit_cast(lego_bits, p) + two_to_n);
}

// Where a vector register holds a table of 2^(j/STEPS) (STEPS = the lanes:
// 8 on AVX2, 16 on AVX-512) and one permute looks it up, t = n + j/STEPS +
// f with f in [-1/(2 STEPS), 1/(2 STEPS)], and 2^f needs degree 2 only
// (Lawson fits: relative error 3.4e-6 on AVX2, 4.3e-7 on AVX-512): two
// FMAs and a multiply where the polynomial takes four FMAs, and a chain
// shorter by two FMA latencies. Each row's loop is bound by its FMA-pipe
// work and by how many vectors' chains the scheduler holds at once: with
// rows in L1 on one core, AVX2 went from 6.5 to 6.0 cycles a vector.
//   - Rounding t to a multiple of 1/STEPS adds 1.5 * 2^(23 - log2 STEPS):
//     the low mantissa bits hold k = n STEPS + j; the permute reads j from
//     k's low bits, and k shifted left by 23 - log2 STEPS adds n to the
//     exponent (and j above it, which the table's entries subtract).
#if defined(__AVX512F__) && {{ VECTOR_BYTES }} == 64
#include <immintrin.h>
constexpr int EXP2_LOG_STEPS = 4;
static inline lego_vec exp2_lookup(lego_vec table, lego_bits k) {
  return (lego_vec)_mm512_permutexvar_ps((__m512i)k, (__m512)table);
}
#elif defined(__AVX2__) && {{ VECTOR_BYTES }} == 32
#include <immintrin.h>
constexpr int EXP2_LOG_STEPS = 3;
static inline lego_vec exp2_lookup(lego_vec table, lego_bits k) {
  return (lego_vec)_mm256_permutevar8x32_ps((__m256)table, (__m256i)k);
}
#else
constexpr int EXP2_LOG_STEPS = 0;  // no table: the polynomial
static inline lego_vec exp2_lookup(lego_vec table, lego_bits) { return table; }  // never called
#endif
constexpr int EXP2_STEPS = 1 << EXP2_LOG_STEPS;

// The table: 2^(j/STEPS), less j's bits where k adds them.
static inline lego_vec exp2_table() {
  lego_vec table = splat(1.0f);
  for (int j = 0; j < EXP2_STEPS && EXP2_STEPS > 1; ++j)
    table[j] = __builtin_bit_cast(float, __builtin_bit_cast(uint32_t, std::exp2(float(j) / EXP2_STEPS)) -
                                             (uint32_t(j) << (23 - EXP2_LOG_STEPS)));
  return table;
}

static inline lego_vec softmax_exp2(lego_vec t, lego_vec table) {
  if constexpr (EXP2_STEPS == 1) {
    return softmax_exp2_polynomial(t);
  } else {
    const lego_bits bits = __builtin_bit_cast(lego_bits, t), floor_bits = __builtin_bit_cast(lego_bits, splat(-125.0f));
    t = __builtin_bit_cast(lego_vec, bits < floor_bits ? bits : floor_bits);
    constexpr float ROUNDING = 1.5f * float(1 << (23 - EXP2_LOG_STEPS));
    const lego_vec shifted = t + ROUNDING;
    const lego_vec f = t - (shifted - ROUNDING);
    const lego_bits k = __builtin_bit_cast(lego_bits, shifted);
    const lego_vec scale = __builtin_bit_cast(
        lego_vec, __builtin_bit_cast(lego_bits, exp2_lookup(table, k)) + (k << (23 - EXP2_LOG_STEPS)));
    lego_vec p = splat(EXP2_LOG_STEPS == 4 ? 0.240219459f : 0.240198329f);
    p = p * f + (EXP2_LOG_STEPS == 4 ? 0.693187833f : 0.693309784f);
    p = p * f + (EXP2_LOG_STEPS == 4 ? 1.0f : 1.00000012f);
    return p * scale;
  }
}

static inline float softmax_exp2(float t) {
  const uint32_t bits = __builtin_bit_cast(uint32_t, t), floor_bits = __builtin_bit_cast(uint32_t, -125.0f);
  t = __builtin_bit_cast(float, bits < floor_bits ? bits : floor_bits);
  const float shifted = t + 12582912.0f;
  const float f = t - (shifted - 12582912.0f);
  float p = 0.00957008128f;
  p = p * f + 0.0559178587f;
  p = p * f + 0.240247453f;
  p = p * f + 0.693121815f;
  p = p * f + 0.999999261f;
  const uint32_t two_to_n = __builtin_bit_cast(uint32_t, shifted) << 23;
  return __builtin_bit_cast(float, __builtin_bit_cast(uint32_t, p) + two_to_n);
}

constexpr float LOG2E = 1.44269504f;

static inline lego_vec vmax(lego_vec a, lego_vec b) { return a > b ? a : b; }

// The maximum of row r: per lane over the whole vectors, then across lanes
// and the remaining columns.
static inline float row_max(lego_vec lane_max, const float* X, int64_t r) {
  float m = lane_max[0];
  for (int l = 1; l < LANES; ++l) m = lane_max[l] > m ? lane_max[l] : m;
  for (int64_t c = COLUMNS; c < {{ N }}; ++c) m = std::fmax(m, X[{{ X[r, c] }}]);
  return m;
}

// Rows r0 .. r1 - 1. A function of its own so that X and Y are arguments,
// in registers: inside the OpenMP loop they are the outlined body's captured
// variables, which every store through Y might change, so clang reloaded
// both pointers from memory three times per vector (5-8 % of the time).
static void softmax_rows(const float* X, float* Y, int64_t r0, int64_t r1) {
  const lego_vec table = exp2_table();
  // The pipeline's first maximum, row r0.
  lego_vec lane_max = splat(-INFINITY);
  for (int64_t c0 = 0; c0 < COLUMNS; c0 += LANES) lane_max = vmax(lane_max, load_x(X, r0, c0));

  float prev_scale = 1.0f;  // the first step has no previous row to scale
  for (int64_t r = r0; r < r1; ++r) {
    const float m_log2e = row_max(lane_max, X, r) * LOG2E;
    // At the ends the pipeline repeats a row: the last step takes row r's
    // maximum again, the first scales row r by 1 before writing it.
    const int64_t next = r + 1 < r1 ? r + 1 : r;
    const int64_t prev = r > r0 ? r - 1 : r;
    const int64_t ahead = next + 2 < {{ M }} ? next + 2 : {{ M }} - 1;  // X's row two steps on
    lane_max = splat(-INFINITY);
    lego_vec lane_sum = splat(0.0f);
    for (int64_t c0 = 0; c0 < COLUMNS; c0 += LANES) {
      // The step's loads before its stores: X's and Y's rows are 4 KiB apart
      // at the same column, and a load after a store to the same offset in
      // another 4 KiB page waits for it (4K aliasing). With the store of the
      // previous row first, a core with the rows in L2 took 2.13 ns a vector
      // of eight on AVX2; loads first, 1.87.
      const lego_vec x_next = load_x(X, next, c0), x = load_x(X, r, c0), y_prev = load_y(Y, prev, c0);
      lane_max = vmax(lane_max, x_next);
      prefetch_x(X, ahead, c0);
      prefetch_y(Y, next, c0);
      const lego_vec e = softmax_exp2(x * LOG2E - m_log2e, table);
      store_y(Y, prev, c0, y_prev * prev_scale);
      store_y(Y, r, c0, e);
      lane_sum += e;
    }
    float s = 0;
    for (int l = 0; l < LANES; ++l) s += lane_sum[l];
    for (int64_t c = COLUMNS; c < {{ N }}; ++c) {
      Y[{{ Y[prev, c] }}] *= prev_scale;
      const float e = softmax_exp2(X[{{ X[r, c] }}] * LOG2E - m_log2e);
      Y[{{ Y[r, c] }}] = e;
      s += e;
    }
    prev_scale = 1.0f / s;
  }
  const int64_t last = r1 - 1;
  for (int64_t c = 0; c < {{ N }}; ++c) Y[{{ Y[last, c] }}] *= prev_scale;
}

extern "C" void lego_kernel(const float* X, float* Y) {
#pragma omp parallel for schedule(static)
  for (int64_t r0 = 0; r0 < {{ M }}; r0 += ROWS) softmax_rows(X, Y, r0, r0 + ROWS < {{ M }} ? r0 + ROWS : {{ M }});
}
