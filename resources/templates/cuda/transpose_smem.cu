// 2D transpose through a 32 x 32 shared tile S (the paper's Fig. 2 case).
// A tile is read by rows and written to S[r, c]; after the barrier lanes read
// S by columns, S[c, r], so that B is written by rows. S's layout decides the
// bank conflicts of that column read: row-major is 32-way, padded or swizzled
// is conflict-free.
extern "C" __global__ void lego_kernel(const float* __restrict__ A, float* __restrict__ B) {
  __shared__ float S[{{ S.size }}];
  const int64_t c = threadIdx.x;
  for (int64_t r = threadIdx.y; r < 32; r += 8) {
    const int64_t i = blockIdx.y * 32 + r, j = blockIdx.x * 32 + c;
    S[{{ smem S[r, c] }}] = A[{{ A[i, j] }}];
  }
  __syncthreads();
  for (int64_t r = threadIdx.y; r < 32; r += 8) {
    const int64_t i = blockIdx.x * 32 + r, j = blockIdx.y * 32 + c;
    B[{{ B[i, j] }}] = S[{{ smem S[c, r] }}];
  }
}
