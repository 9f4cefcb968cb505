// An N-d transpose is a copy whose destination layout permutes the
// dimensions: B[i, j, k] = A[i, j, k], with B stored as RegP(.., perm).
// L orders the visit (A's order, B's order, or tiles); the loop nest walks
// it, and a tile whose two inner loops are contiguous in A and in B
// respectively moves through registers (flat=FLAT: the flat baseline).
extern "C" void lego_kernel(const float* A, float* B) {
  {{ for i, j, k in L parallel flat=FLAT }}
    {{ stream B[i, j, k] = A[i, j, k] }}
  {{ end }}
}
