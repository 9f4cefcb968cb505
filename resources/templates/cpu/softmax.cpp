// Row softmax, fp32: Y[r, :] = exp(X[r, :] - max) / sum. Every access goes
// through the tensors' layouts; the template itself does no index
// arithmetic (Table IV of the paper: 0 user-visible ops).
//
// Speed: one loop per row does three rows' work, a software pipeline
// (each task walks ROWS consecutive rows):
//   - the maximum of row r + 1, whose loads also bring that row into L1;
//   - the exponentials of row r, written to Y unscaled, and their sum;
//   - the scaling of row r - 1, whose Y is still in L1.
// The exp arithmetic then hides the memory traffic of the other two, where
// three passes per row left the first and last bound by memory and the
// max's single dependent chain (lego bench at 4096 x 1024: 0.61 ms in three
// passes, 0.33-0.35 ms pipelined, against a 0.21-0.23 ms copy).
// Every loop is elementwise so both clang (the JIT) and gcc (the exported
// build) vectorize it without -ffast-math: the reductions run in 16
// independent lanes (a float max or sum reduction is vectorized only when
// the compiler may reorder it), and exp is a polynomial (std::exp is a
// scalar libm call that sets errno).
#include <cmath>
#include <cstdint>

// e^x for x <= 0 (softmax shifts by the row maximum). x = n ln2 + r with
// |r| <= ln2/2; e^r is a degree-5 polynomial fitted for relative error
// (1.4e-7, float precision), and 2^n is added into the float's exponent
// bits. n is rounded by adding 1.5 * 2^23, which leaves it in the low
// mantissa bits (std::floor does not vectorize in gcc without -ffast-math).
// The clamp at -87.3 keeps the result a normal float (at most 2^-126 * 1.04,
// far under any tolerance) so the exponent addition cannot wrap.
static inline float softmax_exp(float x) {
  x = x > -87.3f ? x : -87.3f;
  const float shifted = x * 1.44269504f + 12582912.0f;
  const float n = shifted - 12582912.0f;
  const float r = x - n * 0.693147182f;
  float p = 0.0082976548f;
  p = p * r + 0.0419153832f;
  p = p * r + 0.166675746f;
  p = p * r + 0.499988943f;
  p = p * r + 0.999999702f;
  p = p * r + 1.00000012f;
  const int32_t two_to_n = (__builtin_bit_cast(int32_t, shifted) - 0x4B400000) << 23;
  return __builtin_bit_cast(float, __builtin_bit_cast(int32_t, p) + two_to_n);
}

constexpr int64_t ROWS = 64;  // rows one task pipelines
constexpr int LANES = 16;

extern "C" void lego_kernel(const float* X, float* Y) {
#pragma omp parallel for schedule(static)
  for (int64_t r0 = 0; r0 < {{ M }}; r0 += ROWS) {
    const int64_t r1 = r0 + ROWS < {{ M }} ? r0 + ROWS : {{ M }};
    float lane_max[LANES], lane_sum[LANES];

    // The pipeline's first maximum, row r0.
    for (int l = 0; l < LANES; ++l) lane_max[l] = -INFINITY;
    int64_t c0 = 0;
    for (; c0 + LANES <= {{ N }}; c0 += LANES)
#pragma omp simd
      for (int l = 0; l < LANES; ++l) {
        const int64_t c = c0 + l;
        const float x = X[{{ X[r0, c] }}];
        lane_max[l] = x > lane_max[l] ? x : lane_max[l];
      }
    for (int64_t c = c0; c < {{ N }}; ++c) lane_max[0] = std::fmax(lane_max[0], X[{{ X[r0, c] }}]);

    float prev_scale = 1.0f;  // the first step has no previous row to scale
    for (int64_t r = r0; r < r1; ++r) {
      float m = lane_max[0];
      for (int l = 1; l < LANES; ++l) m = lane_max[l] > m ? lane_max[l] : m;
      // At the ends the pipeline repeats a row: the last step takes row r's
      // maximum again, the first scales row r by 1 before writing it.
      const int64_t next = r + 1 < r1 ? r + 1 : r;
      const int64_t prev = r > r0 ? r - 1 : r;
      for (int l = 0; l < LANES; ++l) lane_max[l] = -INFINITY;
      for (int l = 0; l < LANES; ++l) lane_sum[l] = 0;
      for (c0 = 0; c0 + LANES <= {{ N }}; c0 += LANES)
#pragma omp simd
        for (int l = 0; l < LANES; ++l) {
          const int64_t c = c0 + l;
          const float x = X[{{ X[next, c] }}];
          lane_max[l] = x > lane_max[l] ? x : lane_max[l];
          Y[{{ Y[prev, c] }}] *= prev_scale;
          const float e = softmax_exp(X[{{ X[r, c] }}] - m);
          Y[{{ Y[r, c] }}] = e;
          lane_sum[l] += e;
        }
      for (int64_t c = c0; c < {{ N }}; ++c) {
        lane_max[0] = std::fmax(lane_max[0], X[{{ X[next, c] }}]);
        Y[{{ Y[prev, c] }}] *= prev_scale;
        const float e = softmax_exp(X[{{ X[r, c] }}] - m);
        Y[{{ Y[r, c] }}] = e;
        lane_sum[0] += e;
      }
      float s = 0;
      for (int l = 0; l < LANES; ++l) s += lane_sum[l];
      prev_scale = 1.0f / s;
    }
    const int64_t last = r1 - 1;
#pragma omp simd
    for (int64_t c = 0; c < {{ N }}; ++c) Y[{{ Y[last, c] }}] *= prev_scale;
  }
}
