// A 4-d transpose as a layout-changing copy (see copy3d.cpp).
extern "C" void lego_kernel(const float* A, float* B) {
  {{ for i, j, k, l in L parallel flat=FLAT }}
    {{ stream B[i, j, k, l] = A[i, j, k, l] }}
  {{ end }}
}
