// 2D transpose B[j, i] = A[i, j], one 32 x 32 tile per block of 32 x 8
// threads, each thread copying 4 elements. Lanes walk j: reads of a
// row-major A coalesce, writes to a row-major B are strided by N.
extern "C" __global__ void lego_kernel(const float* __restrict__ A, float* __restrict__ B) {
  const int64_t j = blockIdx.x * 32 + threadIdx.x;
  for (int64_t r = threadIdx.y; r < 32; r += 8) {
    const int64_t i = blockIdx.y * 32 + r;
    B[{{ B[j, i] }}] = A[{{ A[i, j] }}];
  }
}
