// B = A + 1, sixteen floats at a time with AVX-512 and nothing else.
#include <immintrin.h>

extern "C" void lego_kernel(const float* A, float* B) {
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < {{ N }}; i += 16) _mm512_storeu_ps(&B[i], _mm512_add_ps(_mm512_loadu_ps(&A[i]), one));
}
