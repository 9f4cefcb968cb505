// C = A B with fp16 A and B, accumulated in double: the exact product the
// tensor-core kernel's fp32 accumulation approximates.
extern "C" void lego_reference(const uint16_t* A, const uint16_t* B, float* C) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double(lego_half_to_float(A[i * K + k])) * double(lego_half_to_float(B[k * N + j]));
      C[i * N + j] = float(s);
    }
}
