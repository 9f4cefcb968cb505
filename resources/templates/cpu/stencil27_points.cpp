// 3D 27-point box stencil, one point at a time (stencil27.cpp stages
// planes instead and is the fast form): the mean of the 3x3x3
// neighbourhood for interior points; the boundary copies `in`. The loop nest
// walks the iteration layout L (rows, or bricks of BR^3); `in` and `out` are
// stored row-major or in bricks. flat=FLAT keeps the flat form (L.inv per
// element) as the baseline.
// `in` and `out` never overlap: __restrict lets the compiler vectorize
// without run-time overlap checks.
extern "C" void lego_kernel(const float* __restrict in, float* __restrict out) {
  {{ for i, j, k in L parallel flat=FLAT }}
    // One unsigned compare per coordinate (x - 1 >= N - 2 is x == 0 or x == N - 1), combined without branches: a chain
    // of || becomes a switch, and a loop with a switch is not vectorized.
    const bool edge = (static_cast<uint64_t>(i - 1) >= {{ N - 2 }}) | (static_cast<uint64_t>(j - 1) >= {{ N - 2 }}) |
                      (static_cast<uint64_t>(k - 1) >= {{ N - 2 }});
    // The boundary value first, overwritten inside: clang vectorizes this
    // form with masked loads (not `edge ? in : sum`, whose select it cannot).
    float value = in[{{ in[i, j, k] }}];
    if (!edge) {
      const int64_t im = i - 1, ip = i + 1, jm = j - 1, jp = j + 1, km = k - 1, kp = k + 1;
      value = (in[{{ in[im, jm, km] }}] + in[{{ in[im, jm, k] }}] + in[{{ in[im, jm, kp] }}] +
               in[{{ in[im, j, km] }}] + in[{{ in[im, j, k] }}] + in[{{ in[im, j, kp] }}] +
               in[{{ in[im, jp, km] }}] + in[{{ in[im, jp, k] }}] + in[{{ in[im, jp, kp] }}] +
               in[{{ in[i, jm, km] }}] + in[{{ in[i, jm, k] }}] + in[{{ in[i, jm, kp] }}] +
               in[{{ in[i, j, km] }}] + in[{{ in[i, j, k] }}] + in[{{ in[i, j, kp] }}] +
               in[{{ in[i, jp, km] }}] + in[{{ in[i, jp, k] }}] + in[{{ in[i, jp, kp] }}] +
               in[{{ in[ip, jm, km] }}] + in[{{ in[ip, jm, k] }}] + in[{{ in[ip, jm, kp] }}] +
               in[{{ in[ip, j, km] }}] + in[{{ in[ip, j, k] }}] + in[{{ in[ip, j, kp] }}] +
               in[{{ in[ip, jp, km] }}] + in[{{ in[ip, jp, k] }}] + in[{{ in[ip, jp, kp] }}]) * (1.0f / 27.0f);
    }
    out[{{ out[i, j, k] }}] = value;
  {{ end }}
}
