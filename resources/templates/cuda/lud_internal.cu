// LUD's internal update (Rodinia lud_internal, paper Fig. 12b): each B x B
// tile of A loses the product of its row panel L and column panel U,
// O = A - L U. The panels are staged in shared memory. A block has
// B * B / C threads and each thread updates C elements: which ones is the
// coarsening layout W, W.inv(thread * C + k) = (i, j).
extern "C" __global__ void lego_kernel(const float* __restrict__ A, const float* __restrict__ L, const float* __restrict__ U,
                                       float* __restrict__ O) {
  __shared__ float SL[{{ SL.size }}];
  __shared__ float SU[{{ SU.size }}];
  const int64_t tid = threadIdx.x, ti = blockIdx.y * {{ B }}, tj = blockIdx.x * {{ B }};
  for (int64_t k = 0; k < {{ C }}; ++k) {
    const int64_t e = tid * {{ C }} + k;
    {{ i, j = W.inv(e) }}
    const int64_t gi = ti + i, gj = tj + j;
    SL[{{ smem SL[i, j] }}] = L[{{ L[gi, j] }}];
    SU[{{ smem SU[i, j] }}] = U[{{ U[i, gj] }}];
  }
  __syncthreads();
  for (int64_t k = 0; k < {{ C }}; ++k) {
    const int64_t e = tid * {{ C }} + k;
    {{ i, j = W.inv(e) }}
    const int64_t gi = ti + i, gj = tj + j;
    float sum = 0;
    for (int64_t m = 0; m < {{ B }}; ++m) sum += SL[{{ smem SL[i, m] }}] * SU[{{ smem SU[m, j] }}];
    O[{{ O[gi, gj] }}] = A[{{ A[gi, gj] }}] - sum;
  }
}
