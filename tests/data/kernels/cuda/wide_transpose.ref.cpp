// Reference: B[j, i] = A[i, j]; A is N x M, B is M x N, row-major.
extern "C" void lego_reference(const float* A, float* B) {
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < M; ++j) B[j * N + i] = A[i * M + j];
}
