extern "C" void lego_reference(const float* in, float* out) {
  auto at = [](int64_t i, int64_t j, int64_t k) { return (i * N + j) * N + k; };
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < N; ++k) {
        if (i == 0 || j == 0 || k == 0 || i == N - 1 || j == N - 1 || k == N - 1) {
          out[at(i, j, k)] = in[at(i, j, k)];
          continue;
        }
        float sum = 0.0f;
        for (int64_t di = -1; di <= 1; ++di)
          for (int64_t dj = -1; dj <= 1; ++dj)
            for (int64_t dk = -1; dk <= 1; ++dk) sum += in[at(i + di, j + dj, k + dk)];
        out[at(i, j, k)] = sum * (1.0f / 27.0f);
      }
}
