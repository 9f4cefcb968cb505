// Row softmax, fp32: Y[r, :] = exp(X[r, :] - max) / sum. Every access goes
// through the tensors' layouts; the template itself does no index
// arithmetic (Table IV of the paper: 0 user-visible ops).
//
// Speed: a row (N floats) stays in L1 between the passes, so X is read from
// memory once and Y written once. Every loop is elementwise so both clang
// (the JIT) and gcc (the exported build) vectorize it without -ffast-math:
// the reductions run in 16 independent lanes (a float max or sum reduction
// is vectorized only when the compiler may reorder it), and exp is a
// polynomial (std::exp is a scalar libm call that sets errno).
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

extern "C" void lego_kernel(const float* X, float* Y) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < {{ M }}; ++r) {
    alignas(64) float e[{{ N }}];
    float lane_max[16], lane_sum[16];
    for (int l = 0; l < 16; ++l) lane_max[l] = -INFINITY;
    int64_t c0 = 0;
    for (; c0 + 16 <= {{ N }}; c0 += 16)
#pragma omp simd
      for (int l = 0; l < 16; ++l) {
        const int64_t c = c0 + l;
        const float x = X[{{ X[r, c] }}];
        lane_max[l] = x > lane_max[l] ? x : lane_max[l];
      }
    for (int64_t c = c0; c < {{ N }}; ++c) lane_max[0] = std::fmax(lane_max[0], X[{{ X[r, c] }}]);
    float m = lane_max[0];
    for (int l = 1; l < 16; ++l) m = lane_max[l] > m ? lane_max[l] : m;

    for (int l = 0; l < 16; ++l) lane_sum[l] = 0;
    for (c0 = 0; c0 + 16 <= {{ N }}; c0 += 16)
#pragma omp simd
      for (int l = 0; l < 16; ++l) {
        const int64_t c = c0 + l;
        e[c] = softmax_exp(X[{{ X[r, c] }}] - m);
        lane_sum[l] += e[c];
      }
    for (int64_t c = c0; c < {{ N }}; ++c) {
      e[c] = softmax_exp(X[{{ X[r, c] }}] - m);
      lane_sum[0] += e[c];
    }
    float s = 0;
    for (int l = 0; l < 16; ++l) s += lane_sum[l];

    const float inv = 1.0f / s;
#pragma omp simd
    for (int64_t c = 0; c < {{ N }}; ++c) Y[{{ Y[r, c] }}] = e[c] * inv;
  }
}
