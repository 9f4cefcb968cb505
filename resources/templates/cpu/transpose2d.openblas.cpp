// Baseline: OpenBLAS's out-of-place transpose (cblas_somatcopy), the call a
// user would make instead of generating a kernel. Row-major A and B.
#include <cblas.h>

extern "C" void lego_kernel(const float* A, float* B) {
  cblas_somatcopy(CblasRowMajor, CblasTrans, N, N, 1.0f, A, N, B, N);
}
