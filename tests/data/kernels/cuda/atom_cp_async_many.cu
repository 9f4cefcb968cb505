// 80 cp.async copies of 4 bytes per thread in one commit group, then one
// wait: PTX sets no limit on copies in flight, so the emulator must not.
extern "C" __global__ void lego_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  __shared__ __align__(16) float S[{{ S.size }}];
  const int64_t lane = threadIdx.x;
  for (int64_t k = 0; k < 80; ++k) {
    const int64_t e = k * 32 + lane;
    lego_cp_async_4(&S[{{ smem S[e] }}], &X[{{ X[e] }}]);
  }
  lego_cp_async_commit();
  lego_cp_async_wait_group<0>();
  __syncthreads();
  for (int64_t k = 0; k < 80; ++k) {
    const int64_t e = k * 32 + lane, o = (e + 1) % 2560;
    Y[{{ Y[e] }}] = S[{{ smem S[o] }}];
  }
}
