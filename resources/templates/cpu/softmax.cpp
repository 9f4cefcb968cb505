// Row softmax, fp32: Y[r, :] = exp(X[r, :] - max) / sum. Every access goes
// through the tensors' layouts; the template itself does no index
// arithmetic (Table IV of the paper: 0 user-visible ops).
#include <cmath>

extern "C" void lego_kernel(const float* X, float* Y) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < {{ M }}; ++r) {
    float m = -INFINITY;
    for (int64_t c = 0; c < {{ N }}; ++c) m = std::fmax(m, X[{{ X[r, c] }}]);
    float s = 0;
    for (int64_t c = 0; c < {{ N }}; ++c) s += Y[{{ Y[r, c] }}] = std::exp(X[{{ X[r, c] }}] - m);
    const float inv = 1.0f / s;
    for (int64_t c = 0; c < {{ N }}; ++c) Y[{{ Y[r, c] }}] *= inv;
  }
}
