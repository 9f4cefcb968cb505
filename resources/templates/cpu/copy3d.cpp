// An N-d transpose is a copy whose destination layout permutes the
// dimensions: B[i, j, k] = A[i, j, k], with B stored as RegP(.., perm).
// L orders the visit (A's order, B's order, or tiles).
extern "C" void lego_kernel(const float* A, float* B) {
#pragma omp parallel for schedule(static)
  for (int64_t x = 0; x < {{ D0 * D1 * D2 }}; ++x) {
    {{ i, j, k = L.inv(x) }}
    B[{{ B[i, j, k] }}] = A[{{ A[i, j, k] }}];
  }
}
