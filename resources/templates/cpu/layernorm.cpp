// Layer normalization over rows, fp32: Y[r, c] = (X[r, c] - mean_r) /
// sqrt(var_r + eps) * W[c] + B[c]. Columns are walked in blocks of BS, as
// Triton's kernel does; the one index operation the template writes is the
// column inside the block, c0 + cc (Table IV of the paper: 1 user-visible op).
//
// Speed: one loop per row does three rows' work, a software pipeline
// (each task walks ROWS consecutive rows, a parameter: a short task pays
// its pipeline's first and last steps more often, a long one leaves fewer
// tasks to share among the threads):
//   - the sum of row r + 1, whose loads also bring that row into L1;
//   - the variance of row r, around the mean the last step found;
//   - the output of row r - 1, whose X is still in L1.
// The row from memory and the stores of Y then overlap the arithmetic of
// the other rows, where three passes per row waited on memory in the first
// and the last. The sums are declared as OpenMP reductions, which lets the
// compiler keep them in vector lanes; a plain `sum +=` is one dependent add
// per element. The variance stays two-pass (around the mean), which is
// exact where E[x^2] - mean^2 cancels.
#include <cmath>
#include <cstdint>

constexpr int64_t ROWS = {{ ROWS }};  // rows one task pipelines

extern "C" void lego_kernel(const float* X, const float* W, const float* B, float* Y) {
#pragma omp parallel for schedule(static)
  for (int64_t r0 = 0; r0 < {{ M }}; r0 += ROWS) {
    const int64_t r1 = r0 + ROWS < {{ M }} ? r0 + ROWS : {{ M }};
    float sum = 0;  // the pipeline's first sum, row r0
    for (int64_t c0 = 0; c0 < {{ N }}; c0 += {{ BS }})
#pragma omp simd reduction(+ : sum)
      for (int64_t cc = 0; cc < {{ BS }}; ++cc) {
        const int64_t c = c0 + cc;
        sum += X[{{ X[r0, c] }}];
      }
    float mean = sum / {{ N }};
    // The first step writes row r0 from a zero scale (Y = B); the next step
    // writes it again with its own statistics.
    float prev_mean = 0, prev_rstd = 0;
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t next = r + 1 < r1 ? r + 1 : r;
      const int64_t prev = r > r0 ? r - 1 : r;
      float next_sum = 0, var = 0;
      for (int64_t c0 = 0; c0 < {{ N }}; c0 += {{ BS }})
#pragma omp simd reduction(+ : next_sum, var)
        for (int64_t cc = 0; cc < {{ BS }}; ++cc) {
          const int64_t c = c0 + cc;
          next_sum += X[{{ X[next, c] }}];
          const float d = X[{{ X[r, c] }}] - mean;
          var += d * d;
          Y[{{ Y[prev, c] }}] = (X[{{ X[prev, c] }}] - prev_mean) * prev_rstd * W[c] + B[c];
        }
      prev_mean = mean;
      prev_rstd = 1.0f / std::sqrt(var / {{ N }} + 1e-5f);
      mean = next_sum / {{ N }};
    }
    const int64_t last = r1 - 1;
    for (int64_t c0 = 0; c0 < {{ N }}; c0 += {{ BS }})
#pragma omp simd
      for (int64_t cc = 0; cc < {{ BS }}; ++cc) {
        const int64_t c = c0 + cc;
        Y[{{ Y[last, c] }}] = (X[{{ X[last, c] }}] - prev_mean) * prev_rstd * W[c] + B[c];
      }
  }
}
