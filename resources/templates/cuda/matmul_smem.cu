// C = A B through shared memory: a block of T x T threads computes a T x T
// tile of C, one element per thread, staging T x T tiles of A and B in SA and
// SB. The inner product reads SA along a row (a broadcast) and SB along a
// row (consecutive lanes, consecutive banks) when both are row-major; SB
// stored column-major turns that read into a T-way conflict.
extern "C" __global__ void lego_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  __shared__ float SA[{{ SA.size }}];
  __shared__ float SB[{{ SB.size }}];
  const int64_t tx = threadIdx.x, ty = threadIdx.y;
  const int64_t i = blockIdx.y * {{ T }} + ty, j = blockIdx.x * {{ T }} + tx;
  float sum = 0;
  for (int64_t k0 = 0; k0 < {{ K }}; k0 += {{ T }}) {
    const int64_t ka = k0 + tx, kb = k0 + ty;
    SA[{{ smem SA[ty, tx] }}] = A[{{ A[i, ka] }}];
    SB[{{ smem SB[ty, tx] }}] = B[{{ B[kb, j] }}];
    __syncthreads();
    for (int64_t k = 0; k < {{ T }}; ++k) sum += SA[{{ smem SA[ty, k] }}] * SB[{{ smem SB[k, tx] }}];
    __syncthreads();
  }
  C[{{ C[i, j] }}] = sum;
}
