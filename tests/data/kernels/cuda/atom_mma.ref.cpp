extern "C" void lego_reference(const int32_t* A, const int32_t* B, const int32_t* C, int32_t* D) {
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      int32_t sum = C[i * 8 + j];
      for (int k = 0; k < 16; ++k) sum += (A[i * 16 + k] % 8) * (B[k * 8 + j] % 8);
      D[i * 8 + j] = sum;
    }
}
