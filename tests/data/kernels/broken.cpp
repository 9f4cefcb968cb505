// A kernel that does not compile (tests: export refuses it and says why).
extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}] + undeclared_name;
}
