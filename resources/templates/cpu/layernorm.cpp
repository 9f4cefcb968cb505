// Layer normalization over rows, fp32: Y[r, c] = (X[r, c] - mean_r) /
// sqrt(var_r + eps) * W[c] + B[c]. Columns are walked in blocks of BS, as
// Triton's kernel does; the one index operation the template writes is the
// column inside the block, c0 + cc (Table IV of the paper: 1 user-visible op).
//
// Speed: a row stays in L1 across the three passes, so X is read from memory
// once. The sums are declared as OpenMP reductions, which lets the compiler
// keep them in vector lanes; a plain `sum +=` is one dependent add per
// element.
#include <cmath>

extern "C" void lego_kernel(const float* X, const float* W, const float* B, float* Y) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < {{ M }}; ++r) {
    float sum = 0;
    for (int64_t c0 = 0; c0 < {{ N }}; c0 += {{ BS }})
#pragma omp simd reduction(+ : sum)
      for (int64_t cc = 0; cc < {{ BS }}; ++cc) {
        const int64_t c = c0 + cc;
        sum += X[{{ X[r, c] }}];
      }
    const float mean = sum / {{ N }};
    float var = 0;
    for (int64_t c0 = 0; c0 < {{ N }}; c0 += {{ BS }})
#pragma omp simd reduction(+ : var)
      for (int64_t cc = 0; cc < {{ BS }}; ++cc) {
        const int64_t c = c0 + cc;
        const float d = X[{{ X[r, c] }}] - mean;
        var += d * d;
      }
    const float rstd = 1.0f / std::sqrt(var / {{ N }} + 1e-5f);
    for (int64_t c0 = 0; c0 < {{ N }}; c0 += {{ BS }})
#pragma omp simd
      for (int64_t cc = 0; cc < {{ BS }}; ++cc) {
        const int64_t c = c0 + cc;
        Y[{{ Y[r, c] }}] = (X[{{ X[r, c] }}] - mean) * rstd * W[c] + B[c];
      }
  }
}
