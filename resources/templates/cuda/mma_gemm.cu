// Tensor-core GEMM, fp16 in and fp32 out: C = A B with A (M x K) and B
// (K x N) stored as the project says. A block of 4 warps computes a 64 x 64
// tile of C; each warp a (64 / WM) x (64 / WN) part of it, in mma.sync
// m16n8k16 tiles accumulating in fp32. K advances 64 at a time through two
// shared-memory stages: cp.async copies the next tile of A and B (16 bytes
// per copy) while the warps multiply the current one, which ldmatrix.x4
// reads into A's fragments and ldmatrix.x4.trans into B's (B is stored k
// by n; the transposing load gives the k-pairs mma's B operand takes).
//
// SA and SB are the tiles' shared-memory layouts. Row-major rows of 64
// halves are 128 bytes, so the eight rows one ldmatrix phase reads all
// start in bank 0: 8-way conflicts. A padded row, or CuTe's 128-byte
// swizzle (Sw<3,3,3>), spreads them over all 32 banks.
constexpr int64_t BM = 64, BN = 64, BK = 64, WARPS_M = {{ WM }}, WARPS_N = 4 / WARPS_M;
constexpr int64_t TM = BM / WARPS_M / 16, TN = BN / WARPS_N / 8;  // mma tiles per warp

extern "C" __global__ void lego_kernel(const uint16_t* __restrict__ A, const uint16_t* __restrict__ B, float* __restrict__ C) {
  // Two stages of each tile; SA and SB name the stage in use, so each
  // access's address is its placeholder's (the trace sees what ldmatrix and
  // cp.async are given).
  __shared__ __align__(128) uint16_t SA_stages[2][{{ SA.size }}];
  __shared__ __align__(128) uint16_t SB_stages[2][{{ SB.size }}];
  const int64_t thread = threadIdx.x, lane = thread % 32, warp = thread / 32;
  const int64_t m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int64_t wm = warp / WARPS_N * (BM / WARPS_M), wn = warp % WARPS_N * (BN / WARPS_N);

  // Stage s gets the k-tile at k0: 16-byte pieces, 8 halves of a row each.
  const auto load = [&](int64_t s, int64_t k0) {
    uint16_t* const SA = SA_stages[s];
    uint16_t* const SB = SB_stages[s];
    for (int64_t p = thread; p < BM * BK / 8; p += 128) {
      const int64_t r = p / (BK / 8), c = p % (BK / 8) * 8, i = m0 + r, k = k0 + c;
      lego_cp_async_16(&SA[{{ smem SA[r, c] }}], &A[{{ A[i, k] }}]);
    }
    for (int64_t p = thread; p < BK * BN / 8; p += 128) {
      const int64_t r = p / (BN / 8), c = p % (BN / 8) * 8, k = k0 + r, j = n0 + c;
      lego_cp_async_16(&SB[{{ smem SB[r, c] }}], &B[{{ B[k, j] }}]);
    }
    lego_cp_async_commit();
  };

  float acc[TM][TN][4] = {};
  const int64_t tiles = {{ K }} / BK;
  load(0, 0);
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t s = t % 2;
    if (t + 1 < tiles) {
      load(1 - s, (t + 1) * BK);
      lego_cp_async_wait_group<1>();  // this stage's group has landed; the next one may be in flight
    } else {
      lego_cp_async_wait_group<0>();
    }
    __syncthreads();
    const uint16_t* const SA = SA_stages[s];
    const uint16_t* const SB = SB_stages[s];
    for (int64_t kk = 0; kk < BK; kk += 16) {
      // Lane l addresses row l % 16 of the 16 x 16 sub-tile, columns
      // 8 (l / 16) on: matrices 0-3 are its quarters in fragment order.
      uint32_t a[TM][4], b[TN][2];
      for (int64_t tm = 0; tm < TM; ++tm) {
        const int64_t r = wm + tm * 16 + lane % 16, c = kk + lane / 16 * 8;
        lego_ldmatrix_x4(a[tm], &SA[{{ smem SA[r, c] }}]);
      }
      for (int64_t tn = 0; tn < TN; tn += 2) {  // two n8 tiles per load
        const int64_t r = kk + lane % 16, c = wn + tn * 8 + lane / 16 * 8;
        uint32_t x[4];
        lego_ldmatrix_x4_trans(x, &SB[{{ smem SB[r, c] }}]);
        b[tn][0] = x[0], b[tn][1] = x[1], b[tn + 1][0] = x[2], b[tn + 1][1] = x[3];
      }
      for (int64_t tm = 0; tm < TM; ++tm)
        for (int64_t tn = 0; tn < TN; ++tn) lego_mma_m16n8k16_f16(acc[tm][tn], a[tm], b[tn], acc[tm][tn]);
    }
    __syncthreads();  // every warp is done with stage s before it is loaded again
  }

  // The accumulator fragment: row g (+ 8 for values 2, 3), columns 2q, 2q + 1.
  const int64_t g = lane / 4, q = lane % 4;
  for (int64_t tm = 0; tm < TM; ++tm)
    for (int64_t tn = 0; tn < TN; ++tn)
      for (int64_t v = 0; v < 4; ++v) {
        const int64_t i = m0 + wm + tm * 16 + g + 8 * (v / 2), j = n0 + wn + tn * 8 + 2 * q + v % 2;
        C[{{ C[i, j] }}] = acc[tm][tn][v];
      }
}
