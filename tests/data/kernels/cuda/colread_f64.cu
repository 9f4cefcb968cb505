// A 64 x 16 fp64 tile staged in S by rows, then read by columns: lane l
// reads S[l, c] and S[l + 32, c]. 8-byte words split a warp's request into
// two 16-lane phases; row-major rows are 128 bytes apart, so each phase is
// 16-way on one bank pair.
extern "C" __global__ void lego_kernel(const double* __restrict__ A, double* __restrict__ B) {
  __shared__ double S[{{ S.size }}];
  const int64_t t = threadIdx.y * 32 + threadIdx.x;
  for (int64_t e = t; e < 64 * 16; e += 128) {
    const int64_t r = e / 16, c = e % 16, i = blockIdx.x * 64 + r, j = c;
    S[{{ smem S[r, c] }}] = A[{{ A[i, j] }}];
  }
  __syncthreads();
  for (int64_t c = threadIdx.y; c < 16; c += 4)
    for (int64_t r = threadIdx.x; r < 64; r += 32) {
      const int64_t i = blockIdx.x * 64 + r, j = c;
      B[{{ B[i, j] }}] = 2.0 * S[{{ smem S[r, c] }}];
    }
}
