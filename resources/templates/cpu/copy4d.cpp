// A 4-d transpose as a layout-changing copy (see copy3d.cpp).
extern "C" void lego_kernel(const float* A, float* B) {
#pragma omp parallel for schedule(static)
  for (int64_t x = 0; x < {{ D0 * D1 * D2 * D3 }}; ++x) {
    {{ i, j, k, l = L.inv(x) }}
    B[{{ B[i, j, k, l] }}] = A[{{ A[i, j, k, l] }}];
  }
}
