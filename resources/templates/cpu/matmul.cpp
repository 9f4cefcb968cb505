// C = A * B, fp32. Register tiles of BM x BN accumulators; A and B are read
// through their data layouts (row- or column-major, or tiled).
extern "C" void lego_kernel(const float* A, const float* B, float* C) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t i0 = 0; i0 < {{ M }}; i0 += {{ BM }}) {
    for (int64_t j0 = 0; j0 < {{ N }}; j0 += {{ BN }}) {
      float acc[{{ BM }}][{{ BN }}] = {};
      for (int64_t k = 0; k < {{ K }}; ++k) {
        for (int64_t ii = 0; ii < {{ BM }}; ++ii) {
          const int64_t i = i0 + ii;
          const float a = A[{{ A[i, k] }}];
          for (int64_t jj = 0; jj < {{ BN }}; ++jj) {
            const int64_t j = j0 + jj;
            acc[ii][jj] += a * B[{{ B[k, j] }}];
          }
        }
      }
      for (int64_t ii = 0; ii < {{ BM }}; ++ii)
        for (int64_t jj = 0; jj < {{ BN }}; ++jj) {
          const int64_t i = i0 + ii, j = j0 + jj;
          C[{{ C[i, j] }}] = acc[ii][jj];
        }
    }
  }
}
