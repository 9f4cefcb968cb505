// 3D 7-point stencil (paper Section V-B): interior points of `out` from
// `in`; the boundary copies `in`. Both tensors use the same data layout
// (row-major or bricks); x walks the iteration layout L.
extern "C" void lego_kernel(const float* in, float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t x = 0; x < {{ N * N * N }}; ++x) {
    {{ i, j, k = L.inv(x) }}
    if (i == 0 || j == 0 || k == 0 || i == {{ N - 1 }} || j == {{ N - 1 }} || k == {{ N - 1 }}) {
      out[{{ out[i, j, k] }}] = in[{{ in[i, j, k] }}];
      continue;
    }
    const int64_t im = i - 1, ip = i + 1, jm = j - 1, jp = j + 1, km = k - 1, kp = k + 1;
    out[{{ out[i, j, k] }}] = 0.4f * in[{{ in[i, j, k] }}] +
                              0.1f * (in[{{ in[im, j, k] }}] + in[{{ in[ip, j, k] }}] + in[{{ in[i, jm, k] }}] +
                                      in[{{ in[i, jp, k] }}] + in[{{ in[i, j, km] }}] + in[{{ in[i, j, kp] }}]);
  }
}
