// A kernel that, by MODE, is right (0), crashes (1), hangs (2) or is wrong (3).
extern "C" void lego_kernel(const float* A, float* B) {
  const int mode = {{ MODE }};
  if (mode == 1) { volatile int* p = nullptr; *p = 1; }
  if (mode == 2) { volatile bool forever = true; while (forever) {} }
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}] + (mode == 3 ? 1.0f : 0.0f);
}
