// A copy that, by OVER, also writes OVER elements past B's end (issue 13,
// failure 7: B[N] written once used to verify), or, for OVER < 0, the one
// element OVER before its start.
extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];
  const int64_t over = {{ OVER }};
  for (int64_t k = 0; k < over; ++k) B[{{ N }} + k] = 1.0f;
  if (over < 0) B[over] = 1.0f;
}
