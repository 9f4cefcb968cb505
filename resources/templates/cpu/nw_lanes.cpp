// Needleman-Wunsch on independent 32 x 32 tiles (Rodinia's needle, paper
// Fig. 12a), on the CPU with tiles in vector lanes: LANES tiles are aligned
// at once, lane t of every vector holding tile b0 + t. Every cell then has
// all its neighbours in the same lane, so the row-by-row order of the
// scalar loop stays and nothing waits on a diagonal.
//
// The layout of the score buffer H (33 x 33 cells x LANES tiles) decides
// what a vector loads: with the tile innermost, a cell of all LANES tiles
// is one contiguous vector; with the tile outermost (each tile's matrix on
// its own, as the scalar loop keeps it), every load is a gather across
// tiles 33 * 33 elements apart. R is read at the same cell of LANES tiles,
// 1024 elements apart, whatever H's layout.
#include <cstdint>

constexpr int64_t LANES = {{ LANES }};
static_assert({{ TILES }} % LANES == 0, "whole groups of tiles");

extern "C" void lego_kernel(const int32_t* __restrict R, int32_t* __restrict O) {
#pragma omp parallel for schedule(static)
  for (int64_t group = 0; group < {{ TILES }} / LANES; ++group) {
    // Written as a product so the compiler knows b0's low bits are zero and
    // folds a tiled layout's b // LANES and b % LANES to group and t.
    const int64_t b0 = group * LANES;
    alignas(64) int32_t H[{{ H.size }}];
    const int64_t zero = 0;
    for (int64_t k = 0; k < 33; ++k)
#pragma omp simd
      for (int64_t t = 0; t < LANES; ++t) {
        H[{{ H[k, zero, t] }}] = -{{ PENALTY }} * (int32_t)k;
        H[{{ H[zero, k, t] }}] = -{{ PENALTY }} * (int32_t)k;
      }
    for (int64_t i = 0; i < 32; ++i)
      for (int64_t c = 0; c < 32; ++c) {
        const int64_t ip = i + 1, cp = c + 1;
#pragma omp simd
        for (int64_t t = 0; t < LANES; ++t) {
          const int64_t b = b0 + t;
          const int32_t diag = H[{{ H[i, c, t] }}] + R[{{ R[b, i, c] }}];
          const int32_t up = H[{{ H[i, cp, t] }}] - {{ PENALTY }};
          const int32_t left = H[{{ H[ip, c, t] }}] - {{ PENALTY }};
          const int32_t best = diag > up ? (diag > left ? diag : left) : (up > left ? up : left);
          H[{{ H[ip, cp, t] }}] = best;
          O[{{ O[b, i, c] }}] = best;
        }
      }
  }
}
