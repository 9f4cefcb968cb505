// 3D 27-point box stencil (paper Section V-B): the mean of the 3x3x3
// neighbourhood for interior points; the boundary copies `in`.
extern "C" void lego_kernel(const float* in, float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t x = 0; x < {{ N * N * N }}; ++x) {
    {{ i, j, k = L.inv(x) }}
    if (i == 0 || j == 0 || k == 0 || i == {{ N - 1 }} || j == {{ N - 1 }} || k == {{ N - 1 }}) {
      out[{{ out[i, j, k] }}] = in[{{ in[i, j, k] }}];
      continue;
    }
    float sum = 0.0f;
    for (int64_t di = -1; di <= 1; ++di)
      for (int64_t dj = -1; dj <= 1; ++dj)
        for (int64_t dk = -1; dk <= 1; ++dk) {
          const int64_t a = i + di, b = j + dj, c = k + dk;
          sum += in[{{ in[a, b, c] }}];
        }
    out[{{ out[i, j, k] }}] = sum * (1.0f / 27.0f);
  }
}
