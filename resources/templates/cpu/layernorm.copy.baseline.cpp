// Baseline: a plain parallel copy of X into Y (STREAM copy), the bytes layer
// norm must move at least once; W and B are 2 N floats that stay in cache.
extern "C" void lego_kernel(const float* X, const float*, const float*, float* Y) {
#pragma omp parallel for simd schedule(static)
  for (int64_t k = 0; k < M * N; ++k) Y[k] = X[k];
}
