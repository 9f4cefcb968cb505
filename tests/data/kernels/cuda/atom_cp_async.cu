// X through shared memory by cp.async: each lane copies 16-byte pieces in
// two commit groups, waits for them, and after a barrier the block writes
// the shared tile back rotated by a warp's worth of pieces (so a lane reads
// what another lane copied).
extern "C" __global__ void lego_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  __shared__ __align__(16) float S[{{ S.size }}];
  const int64_t lane = threadIdx.x, base = blockIdx.x * 256;
  for (int64_t half = 0; half < 2; ++half) {
    const int64_t piece = lane + 32 * half, i = base + 4 * piece, s = 4 * piece;
    lego_cp_async_16(&S[{{ smem S[s] }}], &X[{{ X[i] }}]);
    lego_cp_async_commit();
  }
  lego_cp_async_wait_group<0>();
  __syncthreads();
  for (int64_t k = 0; k < 8; ++k) {
    const int64_t e = (lane * 8 + k + 128) % 256, o = base + lane * 8 + k;
    Y[{{ Y[o] }}] = S[{{ smem S[e] }}];
  }
}
