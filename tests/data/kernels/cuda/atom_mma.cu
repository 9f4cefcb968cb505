// mma.m16n8k16.f16 of small integers: each lane builds its fragments of A
// (16 x 16), B (16 x 8) and C (16 x 8) by PTX's fragment figures, converting
// A's and B's values (X mod 8, exact in fp16) to half bits, and writes D.
static __device__ uint32_t small_half(int32_t v) {  // |v| < 2048, exact
  v %= 8;
  if (v == 0) return 0;
  const uint32_t sign = v < 0 ? 0x8000u : 0, m = v < 0 ? -v : v;
  int e = 0;
  while ((m >> (e + 1)) != 0) ++e;
  return sign | (uint32_t)(e + 15) << 10 | ((m << (10 - e)) & 0x3ffu);
}
extern "C" __global__ void lego_kernel(const int32_t* __restrict__ A, const int32_t* __restrict__ B, const int32_t* __restrict__ C,
                                       int32_t* __restrict__ D) {
  const int64_t lane = threadIdx.x, g = lane / 4, t = lane % 4;
  uint32_t a[4], b[2];
  for (int64_t k = 0; k < 4; ++k) {  // a[k]: rows g (+ 8 for odd k), columns 2t, 2t + 1 (+ 8 for k >= 2)
    const int64_t i = g + 8 * (k % 2), j0 = 2 * t + 8 * (k / 2), j1 = j0 + 1;
    a[k] = small_half(A[{{ A[i, j0] }}]) | small_half(A[{{ A[i, j1] }}]) << 16;
  }
  for (int64_t k = 0; k < 2; ++k) {  // b[k]: rows 2t, 2t + 1 (+ 8 for k = 1), column g
    const int64_t i0 = 2 * t + 8 * k, i1 = i0 + 1;
    b[k] = small_half(B[{{ B[i0, g] }}]) | small_half(B[{{ B[i1, g] }}]) << 16;
  }
  float c[4], d[4];
  for (int64_t k = 0; k < 4; ++k) {  // c[k]: row g (+ 8 for k >= 2), column 2t + k % 2
    const int64_t i = g + 8 * (k / 2), j = 2 * t + k % 2;
    c[k] = (float)C[{{ C[i, j] }}];
  }
  lego_mma_m16n8k16_f16(d, a, b, c);
  for (int64_t k = 0; k < 4; ++k) {
    const int64_t i = g + 8 * (k / 2), j = 2 * t + k % 2;
    D[{{ D[i, j] }}] = (int32_t)d[k];
  }
}
