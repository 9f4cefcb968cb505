// C = A B with fp16 A and B, accumulated in double: the exact product the
// tensor-core kernel's fp32 accumulation approximates. Row by row, k outer
// and j inner, so B is read along its rows: at 4096^3 the reference runs
// in seconds where the j-outer form (B down its columns) took minutes.
extern "C" void lego_reference(const uint16_t* A, const uint16_t* B, float* C) {
  double* row = new double[N];
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) row[j] = 0;
    for (int64_t k = 0; k < K; ++k) {
      const double a = double(lego_half_to_float(A[i * K + k]));
      const uint16_t* b = &B[k * N];
      for (int64_t j = 0; j < N; ++j) row[j] += a * double(lego_half_to_float(b[j]));
    }
    for (int64_t j = 0; j < N; ++j) C[i * N + j] = float(row[j]);
  }
  delete[] row;
}
