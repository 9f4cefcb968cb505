// ldmatrix.x4 (.trans when TRANSPOSED) of an iota tile: X's 32 x 8 values, as 16-bit
// elements in shared memory (matrix r in rows 8r .. 8r + 7); lane l gives
// the address of row l, and writes its four registers to Y[l, :].
extern "C" __global__ void lego_kernel(const int32_t* __restrict__ X, int32_t* __restrict__ Y) {
  __shared__ __align__(16) uint16_t S[{{ S.size }}];
  const int lane = threadIdx.x;
  for (int k = lane; k < 256; k += 32) {
    const int64_t r = k / 8, c = k % 8;
    S[{{ smem S[r, c] }}] = (uint16_t)X[{{ X[r, c] }}];
  }
  __syncthreads();
  uint32_t regs[4];
  const int64_t row = lane, first = 0;
  const uint16_t* address = &S[{{ smem S[row, first] }}];
  if ({{ TRANSPOSED }})
    lego_ldmatrix_x4_trans(regs, address);
  else
    lego_ldmatrix_x4(regs, address);
  for (int64_t j = 0; j < 4; ++j) Y[{{ Y[row, j] }}] = (int32_t)regs[j];
}
