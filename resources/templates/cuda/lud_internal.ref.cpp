// Reference: O = A - L U with L N x B and U B x N, row-major.
extern "C" void lego_reference(const float* A, const float* L, const float* U, float* O) {
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float sum = 0;
      for (int64_t m = 0; m < B; ++m) sum += L[i * B + m] * U[m * N + j];
      O[i * N + j] = A[i * N + j] - sum;
    }
}
