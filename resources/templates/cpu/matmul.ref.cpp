extern "C" void lego_reference(const float* A, const float* B, float* C) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double(A[i * K + k]) * double(B[k * N + j]);
      C[i * N + j] = float(s);
    }
}
