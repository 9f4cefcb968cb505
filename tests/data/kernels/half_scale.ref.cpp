extern "C" void lego_reference(const uint16_t* X, uint16_t* Z) {
  for (int64_t i = 0; i < N; ++i) Z[i] = lego_float_to_half(2.0f * lego_half_to_float(X[i]));
}
