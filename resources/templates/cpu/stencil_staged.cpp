// 3D stencils (paper Section V-B), POINTS = 27: the mean of the 3x3x3
// neighbourhood; POINTS = 7: 0.4 of the centre plus 0.1 of each of its six
// face neighbours. Interior points only; the boundary copies `in`. `in` and
// `out` are stored row-major or in bricks of BR x BR x BK (BK along the
// rows), and only the layouts change between variants.
//
// Why it is staged: a brick's neighbour can sit in another brick, so
// reading the neighbours through the layout costs a division per coordinate
// per neighbour, and the loads are gathers. Instead each thread walks a
// pencil of TJ whole rows down i and copies one plane of it (with its
// one-element halo) at a time through the layout into a small buffer;
// everything after that reads the buffer with constant strides. Three
// planes live in a ring, so each input element is staged once per pencil
// (plus the two halo rows its neighbour pencils stage again). For 27 points
// the sums are separable: 3 along j, then 3 along k give a plane's 3x3
// sums, and an output adds three planes' sums. A row's outputs are computed
// and written out in the same pass as the next plane's sums.
//
// Rows are copied in and out 16 elements at a time, in runs. The
// placeholder in.run(2) is the longest run along k that the layout stores
// at consecutive positions, as the engine proves it with ISL: the whole row
// row-major, a brick's row in bricks, 1 where it proves nothing. A run is
// one plain copy with no check at run time, and the compiler sees the
// layout's structure as constants.
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

constexpr int64_t N = {{ N }}, TJ = {{ TJ }}, POINTS = {{ POINTS }};
static_assert(POINTS == 7 || POINTS == 27, "a 7-point or a 27-point stencil");
// A staged plane: the pencil and its halo. Row element k sits at k + 16,
// so every row's k = 0 is vector-aligned and the halos k = -1 and k = N sit
// in the vectors on either side.
constexpr int64_t PJ = TJ + 2, PK = N + 32;
static_assert(N % TJ == 0 && N % 16 == 0, "pencils tile the grid; rows are whole vectors");

// A row goes in and out in chunks of 16 along k, each made of runs.
constexpr int64_t CHUNK = 16;
constexpr int64_t run_in_chunk(int64_t run) { return run < CHUNK ? run : CHUNK; }
constexpr int64_t IN_RUN = run_in_chunk({{ in.run(2) }}), OUT_RUN = run_in_chunk({{ out.run(2) }});
static_assert(N % CHUNK == 0 && CHUNK % IN_RUN == 0 && CHUNK % OUT_RUN == 0, "a row is whole chunks; a chunk is whole runs");

// The positions of a chunk's runs in a tensor (`position(i, j, k)`), and
// the same runs four planes down fetched ahead: in bricks a plane's runs
// are spread over many lines the hardware prefetcher does not follow. One
// prefetch per line the runs start in; WRITE: fetched for writing. Always
// inlined: as a call its positions went through memory, and the stencil
// ran at half the speed.
template <int64_t RUN, int WRITE, class Position>
__attribute__((always_inline)) static inline void run_positions(int64_t* at, Position position, const float* tensor, int64_t i, int64_t j,
                                                                 int64_t kb) {
  const int64_t ahead = i + 4 < N ? i + 4 : N - 1;
  int64_t line = -1;
  for (int64_t r = 0; r < CHUNK / RUN; ++r) {
    at[r] = position(i, j, kb + r * RUN);
    const int64_t at_ahead = position(ahead, j, kb + r * RUN);
    if (at_ahead >> 4 != line) __builtin_prefetch(&tensor[at_ahead], WRITE);
    line = at_ahead >> 4;
  }
}

static inline int64_t clamp_to_grid(int64_t x) { return x < 0 ? 0 : (x > N - 1 ? N - 1 : x); }

// Lanes 15 of `before` and 0..14 of `here`: each lane's k - 1 neighbour.
static inline lego_f32x16 shift_in_left(lego_f32x16 before, lego_f32x16 here) {
  return __builtin_shufflevector(before, here, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
}
// Lanes 1..15 of `here` and 0 of `after`: each lane's k + 1 neighbour.
static inline lego_f32x16 shift_in_right(lego_f32x16 here, lego_f32x16 after) {
  return __builtin_shufflevector(here, after, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
}

// A row's 3x3 sums at k .. k + 15 from the column sums around them.
static inline lego_f32x16 box_of(lego_f32x16 before, lego_f32x16 here, lego_f32x16 after) {
  return shift_in_left(before, here) + here + shift_in_right(here, after);
}

// `in` and `out` never overlap: __restrict lets the compiler vectorize
// without run-time overlap checks.
extern "C" void lego_kernel(const float* __restrict in, float* __restrict out) {
  const auto in_at = [](int64_t i, int64_t j, int64_t k) { return {{ in[i, j, k] }}; };
  const auto out_at = [](int64_t i, int64_t j, int64_t k) { return {{ out[i, j, k] }}; };
#pragma omp parallel for schedule(static)
  for (int64_t tj = 0; tj < N; tj += TJ) {
    alignas(64) float plane[3][PJ][PK];  // staged planes i-1, i, i+1 (slot i % 3)
    // 27 points: each row's 3x3 sums over (j, k) of plane i (`box`) and
    // of planes i-1 and i together (`pair`); plane i's output row is
    // pair + the next plane's box.
    alignas(64) float box[TJ][N], pair[TJ][N];
    // The padding around a row's halo is summed in lanes that are then
    // shifted out: zero, so it is never a NaN or a slow denormal.
    std::memset(plane, 0, sizeof plane);
    // Halo positions outside the grid are clamped onto it: only boundary
    // outputs would read them, and those copy `in` instead.
    auto stage = [&](int64_t i) {
      float(*rows)[PK] = plane[i % 3];
      for (int64_t y = 0; y < PJ; ++y) {
        const int64_t j = clamp_to_grid(tj + y - 1);
        float* p = rows[y] + 16;
        for (int64_t kb = 0; kb < N; kb += CHUNK) {
          int64_t at[CHUNK / IN_RUN];
          run_positions<IN_RUN, 0>(at, in_at, in, i, j, kb);
          for (int64_t r = 0; r < CHUNK / IN_RUN; ++r) std::memcpy(p + kb + r * IN_RUN, in + at[r], sizeof(float) * IN_RUN);
        }
        p[-1] = p[0];
        p[N] = p[N - 1];
      }
    };
    // The 3x3 sum of staged rows y .. y + 2 at k = z .. z + 15: the three
    // rows summed in aligned vectors (`columns`), then their k-neighbours
    // shifted in across lanes. Loads at k - 1 and k + 1 would split cache
    // lines, and the load ports were the limit.
    auto columns = [&](const float (*rows)[PK], int64_t y, int64_t at) {
      return load16(rows[y] + at) + load16(rows[y + 1] + at) + load16(rows[y + 2] + at);
    };
    stage(0);
    if constexpr (POINTS == 27) {
      for (int64_t y = 0; y < TJ; ++y) {
        lego_f32x16 before = columns(plane[0], y, 0), here = columns(plane[0], y, 16);
        for (int64_t z = 0; z < N; z += 16) {
          const lego_f32x16 after = columns(plane[0], y, z + 32);
          const lego_f32x16 sum = box_of(before, here, after);
          std::memcpy(&box[y][z], &sum, sizeof sum);
          std::memcpy(&pair[y][z], &sum, sizeof sum);  // plane -1 adds nothing; plane 0's outputs are copies anyway
          before = here;
          here = after;
        }
      }
    }
    for (int64_t i = 0; i < N; ++i) {
      const bool next_exists = i + 1 < N;
      if (next_exists) stage(i + 1);
      const float(*here_rows)[PK] = plane[i % 3];
      const float(*next_rows)[PK] = plane[(i + 1) % 3];
      const float(*previous_rows)[PK] = plane[(i + 2) % 3];
      const bool edge_plane = i == 0 || i == N - 1;
      // One pass per row: the next plane's sums, this plane's outputs and
      // their way out through the layout, 16 at a time, so the stores to
      // `out` overlap the arithmetic.
      for (int64_t y = 0; y < TJ; ++y) {
        const int64_t j = tj + y;
        const bool edge_row = edge_plane || j == 0 || j == N - 1;
        const float* centre = here_rows[y + 1] + 16;
        lego_f32x16 before = {}, here = {};
        if (POINTS == 27 && next_exists) before = columns(next_rows, y, 0), here = columns(next_rows, y, 16);
        for (int64_t z = 0; z < N; z += 16) {
          lego_f32x16 result;
          if constexpr (POINTS == 27) {
            lego_f32x16 next_box = {};
            if (next_exists) {
              const lego_f32x16 after = columns(next_rows, y, z + 32);
              next_box = box_of(before, here, after);
              before = here;
              here = after;
            }
            const lego_f32x16 this_box = load16(&box[y][z]), planes_so_far = load16(&pair[y][z]);
            result = (planes_so_far + next_box) * (1.0f / 27.0f);
            const lego_f32x16 next_pair = this_box + next_box;
            std::memcpy(&pair[y][z], &next_pair, sizeof next_pair);
            std::memcpy(&box[y][z], &next_box, sizeof next_box);
          } else {
            const lego_f32x16 c = load16(centre + z);
            const lego_f32x16 sides = load16(centre + z - 1) + load16(centre + z + 1) + load16(here_rows[y] + 16 + z) +
                                      load16(here_rows[y + 2] + 16 + z) + load16(previous_rows[y + 1] + 16 + z) +
                                      load16(next_rows[y + 1] + 16 + z);
            result = 0.4f * c + 0.1f * sides;
          }
          alignas(64) float values[16];
          if (edge_row)
            std::memcpy(values, centre + z, sizeof values);
          else
            std::memcpy(values, &result, sizeof values);
          if (z == 0) values[0] = centre[0];
          if (z == N - 16) values[15] = centre[N - 1];
          int64_t at[CHUNK / OUT_RUN];
          run_positions<OUT_RUN, 1>(at, out_at, out, i, j, z);
          for (int64_t r = 0; r < CHUNK / OUT_RUN; ++r) std::memcpy(out + at[r], values + r * OUT_RUN, sizeof(float) * OUT_RUN);
        }
      }
    }
  }
}
