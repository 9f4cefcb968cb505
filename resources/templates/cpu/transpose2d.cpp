// 2D transpose, B[j, i] = A[i, j]. The iteration layout L decides the order
// in which (i, j) is visited: x walks L's physical order, L.inv(x) gives the
// element. A and B are stored in their own data layouts.
extern "C" void lego_kernel(const float* A, float* B) {
#pragma omp parallel for schedule(static)
  for (int64_t x = 0; x < {{ N * N }}; ++x) {
    {{ i, j = L.inv(x) }}
    B[{{ B[j, i] }}] = A[{{ A[i, j] }}];
  }
}
