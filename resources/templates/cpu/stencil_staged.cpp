// 3D stencils (paper Section V-B), POINTS = 27: the mean of the 3x3x3
// neighbourhood; POINTS = 7: 0.4 of the centre plus 0.1 of each of its six
// face neighbours. Interior points only; the boundary copies `in`. `in` and
// `out` are stored row-major or in bricks of BR^3, and only the layouts
// change between variants.
//
// Why it is staged: a brick's neighbour can sit in another brick, so
// reading the neighbours through the layout costs a division per coordinate
// per neighbour, and the loads are gathers. Instead each thread walks a
// pencil of TJ whole rows down i and copies one plane of it (with its
// one-element halo) at a time through the layout into a small buffer;
// everything after that reads the buffer with constant strides. For 27
// points the sums are separable: 3 along k, then 3 along j give each
// plane's 3x3 sums, and an output adds three planes' sums, 9 loads instead
// of 27. Three planes live in a ring, so each input element is staged once
// per pencil (plus the two halo rows its neighbour pencils stage again).
//
// Rows are copied in and out in runs of RUN = BR elements starting at
// multiples of BR; a run whose indices are consecutive is one plain copy
// (every run, in both layouts here).
// stencil7_points and stencil27_points are the per-point forms, with the
// flat L.inv baseline.
#include <cstdint>
#include <cstring>

typedef float lego_f32x16 __attribute__((vector_size(64)));
static inline lego_f32x16 load16(const float* p) {
  lego_f32x16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

constexpr int64_t N = {{ N }}, TJ = {{ TJ }}, RUN = {{ BR }}, POINTS = {{ POINTS }};
static_assert(POINTS == 7 || POINTS == 27, "a 7-point or a 27-point stencil");
constexpr int64_t PJ = TJ + 2, PK = N + 2;  // a staged plane: the pencil and its halo
static_assert(N % TJ == 0 && N % 16 == 0, "pencils tile the grid; rows are whole vectors");

// A run's indices, computed in vector registers, are checked rather than
// assumed: when they are consecutive (a row-major row, a brick's row) the
// run is one plain copy, otherwise a gather or scatter. Either way the
// result is right for any layout.
static inline bool contiguous(const int64_t* at) {
  bool yes = true;
  for (int64_t r = 1; r < RUN; ++r) yes &= at[r] == at[0] + r;
  return yes;
}

static inline int64_t clamp_to_grid(int64_t x) { return x < 0 ? 0 : (x > N - 1 ? N - 1 : x); }

// `in` and `out` never overlap: __restrict lets the compiler vectorize
// without run-time overlap checks.
extern "C" void lego_kernel(const float* __restrict in, float* __restrict out) {
#pragma omp parallel for schedule(static)
  for (int64_t tj = 0; tj < N; tj += TJ) {
    alignas(64) float plane[3][PJ][PK];  // staged planes i-1, i, i+1 (slot i % 3)
    alignas(64) float box[3][TJ][N];     // their 3x3 sums over (j, k)
    // Halo positions outside the grid are clamped onto it: only boundary
    // outputs would read them, and those copy `in` instead.
    auto stage = [&](int64_t i, int64_t slot) {
      for (int64_t y = 0; y < PJ; ++y) {
        const int64_t j = clamp_to_grid(tj + y - 1);
        float* p = plane[slot][y] + 1;
        for (int64_t kb = 0; kb < N; kb += RUN) {
          int64_t at[RUN];
          for (int64_t kr = 0; kr < RUN; ++kr) {
            const int64_t k = kb + kr;
            at[kr] = {{ in[i, j, k] }};
          }
          {
            // The same run four planes down, fetched ahead: in bricks a
            // plane's runs are spread over many lines the hardware
            // prefetcher does not follow (15% of the time at 256^3).
            const int64_t ahead = i + 4 < N ? i + 4 : N - 1, k = kb;
            __builtin_prefetch(&in[{{ in[ahead, j, k] }}]);
          }
          if (contiguous(at))
            std::memcpy(p + kb, in + at[0], sizeof(float) * RUN);
          else
            for (int64_t kr = 0; kr < RUN; ++kr) p[kb + kr] = in[at[kr]];
        }
        p[-1] = p[0];
        p[N] = p[N - 1];
      }
      if constexpr (POINTS == 7) return;  // the 7-point form reads the planes themselves
      // Each plane's 3x3 sums straight from the three staged rows, nine
      // vector loads per 16 sums and no buffer in between: a buffer of row
      // sums was one more array competing for L1. Written with vector types:
      // clang turns overlapping loads into a value carried to the next
      // iteration and then does not vectorize that recurrence.
      for (int64_t y = 0; y < TJ; ++y)
        for (int64_t z = 0; z < N; z += 16) {
          const float* a = &plane[slot][y][z];
          const float* b = &plane[slot][y + 1][z];
          const float* c = &plane[slot][y + 2][z];
          const lego_f32x16 sum = (load16(a) + load16(a + 1) + load16(a + 2)) + (load16(b) + load16(b + 1) + load16(b + 2)) +
                                  (load16(c) + load16(c + 1) + load16(c + 2));
          std::memcpy(&box[slot][y][z], &sum, sizeof sum);
        }
    };
    for (auto& row : box[2])
      for (float& v : row) v = 0.0f;  // plane -1 does not exist; plane 0's outputs are boundary copies anyway
    stage(0, 0);
    for (int64_t i = 0; i < N; ++i) {
      if (i + 1 < N) stage(i + 1, (i + 1) % 3);
      const int64_t here = i % 3, below = (i + 2) % 3, above = (i + 1) % 3;
      const bool edge_plane = i == 0 || i == N - 1;
      for (int64_t y = 0; y < TJ; ++y) {
        const int64_t j = tj + y;
        const bool edge_row = edge_plane || j == 0 || j == N - 1;
        const float* __restrict lower = box[below][y];
        const float* __restrict middle = box[here][y];
        const float* __restrict upper = box[above][y];
        const float* __restrict centre = plane[here][y + 1] + 1;
        // The row's results first, in whole vectors and apart from the
        // layout; then they go out in runs, like the staging.
        alignas(64) float result[N];
        if (edge_row) {
          std::memcpy(result, centre, sizeof result);
        } else if constexpr (POINTS == 27) {
          for (int64_t z = 0; z < N; z += 16) {
            const lego_f32x16 sum = (load16(lower + z) + load16(middle + z) + load16(upper + z)) * (1.0f / 27.0f);
            std::memcpy(result + z, &sum, sizeof sum);
          }
          result[0] = centre[0];
          result[N - 1] = centre[N - 1];
        } else {
          const float* __restrict north = plane[here][y] + 1;
          const float* __restrict south = plane[here][y + 2] + 1;
          const float* __restrict down = plane[below][y + 1] + 1;
          const float* __restrict up = plane[above][y + 1] + 1;
          for (int64_t z = 0; z < N; z += 16) {
            const lego_f32x16 sum = 0.4f * load16(centre + z) + 0.1f * (load16(down + z) + load16(up + z) + load16(north + z) +
                                                                       load16(south + z) + load16(centre + z - 1) + load16(centre + z + 1));
            std::memcpy(result + z, &sum, sizeof sum);
          }
          result[0] = centre[0];
          result[N - 1] = centre[N - 1];
        }
        for (int64_t kb = 0; kb < N; kb += RUN) {
          int64_t at[RUN];
          for (int64_t kr = 0; kr < RUN; ++kr) {
            const int64_t k = kb + kr;
            at[kr] = {{ out[i, j, k] }};
          }
          {
            // As for `in`: the same run four planes down, for writing.
            const int64_t ahead = i + 4 < N ? i + 4 : N - 1, k = kb;
            __builtin_prefetch(&out[{{ out[ahead, j, k] }}], 1);
          }
          if (contiguous(at))
            std::memcpy(out + at[0], result + kb, sizeof(float) * RUN);
          else
            for (int64_t kr = 0; kr < RUN; ++kr) out[at[kr]] = result[kb + kr];
        }
      }
    }
  }
}
