extern "C" void lego_reference(const float* X, float* Y) {
  for (int64_t e = 0; e < 2560; ++e) Y[e] = X[(e + 1) % 2560];
}
