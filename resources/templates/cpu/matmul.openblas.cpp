// Baseline: OpenBLAS's sgemm, the call a user would make instead of
// generating a kernel. Row-major A, B and C.
#include <cblas.h>

extern "C" void lego_kernel(const float* A, const float* B, float* C) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
}
