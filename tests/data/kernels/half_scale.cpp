// Z = 2 * X, both fp16 (their bits, uint16_t), computed in float (half.lego.json).
extern "C" void lego_kernel(const uint16_t* X, uint16_t* Z) {
  for (int64_t i = 0; i < {{ N }}; ++i) Z[{{ Z[i] }}] = lego_float_to_half(2.0f * lego_half_to_float(X[{{ X[i] }}]));
}
