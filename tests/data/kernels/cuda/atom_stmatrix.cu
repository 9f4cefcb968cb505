// stmatrix.x4: each lane packs its four registers from X by PTX's figure
// (register j: matrix j, row l / 4, columns 2 (l % 4), + 1), lane l gives
// row l's address, and the stored 32 x 8 tile is written to Y.
extern "C" __global__ void lego_kernel(const int32_t* __restrict__ X, int32_t* __restrict__ Y) {
  __shared__ __align__(16) uint16_t S[{{ S.size }}];
  const int64_t lane = threadIdx.x, first = 0;
  uint32_t regs[4];
  for (int64_t j = 0; j < 4; ++j) {
    const int64_t r = 8 * j + lane / 4, c0 = 2 * (lane % 4), c1 = c0 + 1;
    regs[j] = (uint16_t)X[{{ X[r, c0] }}] | (uint32_t)(uint16_t)X[{{ X[r, c1] }}] << 16;
  }
  lego_stmatrix_x4(&S[{{ smem S[lane, first] }}], regs);
  __syncthreads();
  for (int64_t k = lane; k < 256; k += 32) {
    const int64_t r = k / 8, c = k % 8;
    Y[{{ Y[r, c] }}] = (int32_t)S[{{ smem S[r, c] }}];
  }
}
