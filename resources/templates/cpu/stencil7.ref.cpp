extern "C" void lego_reference(const float* in, float* out) {
  auto at = [](int64_t i, int64_t j, int64_t k) { return (i * N + j) * N + k; };
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < N; ++k) {
        if (i == 0 || j == 0 || k == 0 || i == N - 1 || j == N - 1 || k == N - 1) {
          out[at(i, j, k)] = in[at(i, j, k)];
          continue;
        }
        out[at(i, j, k)] = 0.4f * in[at(i, j, k)] + 0.1f * (in[at(i - 1, j, k)] + in[at(i + 1, j, k)] + in[at(i, j - 1, k)] +
                                                            in[at(i, j + 1, k)] + in[at(i, j, k - 1)] + in[at(i, j, k + 1)]);
      }
}
