// 2D transpose, B[j, i] = A[i, j]. The iteration layout L decides the order
// in which (i, j) is visited: the loop nest walks L's physical order, tile by
// tile, so every index below is affine in the loop variables. A and B are
// stored in their own data layouts. When L's innermost tile swaps the two
// dimensions of A and B, the move becomes a register transpose with
// streaming stores (B is written once). flat=FLAT keeps the flat form
// (x over L's order, L.inv(x) per element) as the baseline.
extern "C" void lego_kernel(const float* A, float* B) {
  {{ for i, j in L parallel flat=FLAT }}
    {{ stream B[j, i] = A[i, j] }}
  {{ end }}
}
