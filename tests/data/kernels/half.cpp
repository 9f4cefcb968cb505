// Y = 2 * X, X in fp16 (its bits, uint16_t), Y in float (half.lego.json).
extern "C" void lego_kernel(const uint16_t* X, float* Y) {
  for (int64_t i = 0; i < {{ N }}; ++i) Y[{{ Y[i] }}] = 2.0f * lego_half_to_float(X[{{ X[i] }}]);
}
