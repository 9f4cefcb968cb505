// Wrong on purpose (half.lego.json): doubles X's bits as an integer instead
// of the half they encode.
extern "C" void lego_kernel(const uint16_t* X, float* Y) {
  for (int64_t i = 0; i < {{ N }}; ++i) Y[{{ Y[i] }}] = 2.0f * float(X[{{ X[i] }}]);
}
