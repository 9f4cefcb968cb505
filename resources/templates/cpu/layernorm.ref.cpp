// Reference: row-major logical arrays, parameters as constants; sums in double.
#include <cmath>

extern "C" void lego_reference(const float* X, const float* W, const float* B, float* Y) {
  for (int64_t r = 0; r < M; ++r) {
    double mean = 0, var = 0;
    for (int64_t c = 0; c < N; ++c) mean += X[r * N + c];
    mean /= N;
    for (int64_t c = 0; c < N; ++c) var += (X[r * N + c] - mean) * (X[r * N + c] - mean);
    const double rstd = 1.0 / std::sqrt(var / N + 1e-5);
    for (int64_t c = 0; c < N; ++c) Y[r * N + c] = static_cast<float>((X[r * N + c] - mean) * rstd * W[c] + B[c]);
  }
}
