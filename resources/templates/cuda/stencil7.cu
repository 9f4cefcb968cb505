// 3D 7-point stencil (paper Fig. 12c), one output point per thread: thread x
// of the grid takes the point L.inv(x). The data layout of `in` and `out`
// (row-major or bricks) and the iteration layout L decide how many 32-byte
// sectors a warp's loads touch and how much of each it uses.
extern "C" __global__ void lego_kernel(const float* __restrict__ in, float* __restrict__ out) {
  const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  {{ i, j, k = L.inv(x) }}
  if (i == 0 || j == 0 || k == 0 || i == {{ N - 1 }} || j == {{ N - 1 }} || k == {{ N - 1 }}) {
    out[{{ out[i, j, k] }}] = in[{{ in[i, j, k] }}];
    return;
  }
  const int64_t im = i - 1, ip = i + 1, jm = j - 1, jp = j + 1, km = k - 1, kp = k + 1;
  out[{{ out[i, j, k] }}] = 0.4f * in[{{ in[i, j, k] }}] +
                            0.1f * (in[{{ in[im, j, k] }}] + in[{{ in[ip, j, k] }}] + in[{{ in[i, jm, k] }}] +
                                    in[{{ in[i, jp, k] }}] + in[{{ in[i, j, km] }}] + in[{{ in[i, j, kp] }}]);
}
