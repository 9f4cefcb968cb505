// Needleman-Wunsch on independent 32 x 32 tiles (Rodinia's needle kernel,
// paper Fig. 12a): one block of 32 threads per tile fills the score matrix
// H (33 x 33 with its boundary) in shared memory along anti-diagonals. At
// step d thread t computes H[t + 1, d - t + 1] from its three neighbours, so
// a warp walks an anti-diagonal of H: with H row-major every lane hits the
// same bank (32-way); stored by the anti-diagonal layout it is contiguous.
extern "C" __global__ void lego_kernel(const int32_t* __restrict__ R, int32_t* __restrict__ O) {
  __shared__ int32_t H[{{ H.size }}];
  const int64_t b = blockIdx.x, t = threadIdx.x, zero = 0, tp = t + 1;
  H[{{ smem H[tp, zero] }}] = -{{ PENALTY }} * (int32_t)tp;
  H[{{ smem H[zero, tp] }}] = -{{ PENALTY }} * (int32_t)tp;
  if (t == 0) H[{{ smem H[zero, zero] }}] = 0;
  __syncthreads();
  for (int64_t d = 0; d < 63; ++d) {
    const int64_t c = d - t;
    if (c >= 0 && c < 32) {
      const int64_t i = t, cp = c + 1;
      const int32_t diag = H[{{ smem H[i, c] }}] + R[{{ R[b, i, c] }}];
      const int32_t up = H[{{ smem H[i, cp] }}] - {{ PENALTY }};
      const int32_t left = H[{{ smem H[tp, c] }}] - {{ PENALTY }};
      H[{{ smem H[tp, cp] }}] = diag > up ? (diag > left ? diag : left) : (up > left ? up : left);
    }
    __syncthreads();
  }
  for (int64_t c = 0; c < 32; ++c) {
    const int64_t cp = c + 1;
    O[{{ O[b, t, c] }}] = H[{{ smem H[tp, cp] }}];
  }
}
