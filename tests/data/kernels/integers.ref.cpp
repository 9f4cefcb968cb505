extern "C" void lego_reference(const int32_t* A, int32_t* B) {
  for (int64_t i = 0; i < N; ++i) B[i] = A[i] * 100000;
}
