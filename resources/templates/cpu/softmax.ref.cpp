// Reference: row-major logical arrays, parameters as constants.
#include <cmath>

extern "C" void lego_reference(const float* X, float* Y) {
  for (int64_t r = 0; r < M; ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < N; ++c) m = std::fmax(m, X[r * N + c]);
    for (int64_t c = 0; c < N; ++c) s += std::exp(X[r * N + c] - m);
    for (int64_t c = 0; c < N; ++c) Y[r * N + c] = static_cast<float>(std::exp(X[r * N + c] - m) / s);
  }
}
