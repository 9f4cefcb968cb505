// B = A * 100000, off by one wherever A is not 0 (integers.lego.json).
extern "C" void lego_kernel(const int32_t* A, int32_t* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) {
    const int32_t a = A[{{ A[i] }}];
    B[{{ B[i] }}] = a * 100000 + (a != 0 ? 1 : 0);
  }
}
