// B = A + 1 through half precision arithmetic that -march=sapphirerapids
// would compile to AVX512-FP16 instructions (vfmadd213ph), which a Zen 4
// or an Ice Lake lacks: the target must build for its modelled level only.
extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) {
    const _Float16 h = (_Float16)(A[i] * 0.0f + 1.0f);
    B[i] = A[i] + (float)(h * h);
  }
}
