// A copy that also writes one element AT elements past B's end (issue 29,
// failure 8: 4096-5000, 6144-7000 and 20000+ past were verified, and 10000
// past was blamed on A).
extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];
  B[{{ N }} + {{ AT }}] = 1.0f;
}
