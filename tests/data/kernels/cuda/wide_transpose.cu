// A transpose through a 32 x 64 fp32 tile (wider than a warp): written by
// rows, read by columns, lane l taking S[l, c]. Rows are 256 bytes, so a
// row-major column sits in one bank: 32-way. Not square, so antidiag and
// skew do not apply; padding or a swizzle must.
extern "C" __global__ void lego_kernel(const float* __restrict__ A, float* __restrict__ B) {
  __shared__ float S[{{ S.size }}];
  for (int64_t c = threadIdx.x; c < 64; c += 32)
    for (int64_t r = threadIdx.y; r < 32; r += 8) {
      const int64_t i = blockIdx.y * 32 + r, j = blockIdx.x * 64 + c;
      S[{{ smem S[r, c] }}] = A[{{ A[i, j] }}];
    }
  __syncthreads();
  for (int64_t c = threadIdx.y; c < 64; c += 8) {
    const int64_t r = threadIdx.x;
    const int64_t i = blockIdx.x * 64 + c, j = blockIdx.y * 32 + r;
    B[{{ B[i, j] }}] = S[{{ smem S[r, c] }}];
  }
}
