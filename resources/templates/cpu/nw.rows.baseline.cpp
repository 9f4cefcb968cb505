// Baseline: the scalar loop a user would write (Rodinia's CPU needle): each
// tile's H filled row by row, one cell after another, every cell waiting on
// its left neighbour. Timed in the same sweep as the wavefront variants.
#include <cstdint>

extern "C" void lego_kernel(const int32_t* R, int32_t* O) {
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < TILES; ++b) {
    int32_t H[33][33];
    for (int k = 0; k < 33; ++k) H[k][0] = H[0][k] = -int32_t(PENALTY) * k;
    for (int i = 1; i < 33; ++i)
      for (int j = 1; j < 33; ++j) {
        const int32_t diag = H[i - 1][j - 1] + R[(b * 32 + i - 1) * 32 + j - 1];
        const int32_t up = H[i - 1][j] - int32_t(PENALTY), left = H[i][j - 1] - int32_t(PENALTY);
        H[i][j] = diag > up ? (diag > left ? diag : left) : (up > left ? up : left);
        O[(b * 32 + i - 1) * 32 + j - 1] = H[i][j];
      }
  }
}
